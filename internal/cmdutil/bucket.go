package cmdutil

import (
	"context"

	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/objstore"
)

// OpenBucket opens and checks the store an s3://BUCKET/PREFIX argument names: a missing bucket,
// refused credentials and an endpoint that does not answer are refused before any work.
func OpenBucket(ctx context.Context, addr string) (*objstore.S3, error) {
	u, err := objstore.ParseURL(addr)
	if err != nil {
		return nil, &UsageError{err}
	}
	store, err := objstore.OpenS3(ctx, u)
	if err != nil {
		return nil, err
	}
	return store, store.Check(ctx)
}

// MirrorBucket brings the archived sessions of s3://BUCKET/PREFIX into their local mirror and
// returns its folder, which the reading commands then walk as a local archive.
func MirrorBucket(addr string) (string, error) {
	ctx := context.Background()
	store, err := OpenBucket(ctx, addr)
	if err != nil {
		return "", err
	}
	dir, err := archive.MirrorDir(store.Endpoint(), store.String())
	if err != nil {
		return "", err
	}
	return dir, archive.Mirror(ctx, store, dir)
}

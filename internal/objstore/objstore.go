// Package objstore is where a team's archive lives: an S3-compatible bucket (AWS S3, R2, MinIO,
// SeaweedFS) or, for tests and for a shared folder, a local directory, behind one interface. An
// object is written whole by one call and is visible whole or not at all; its metadata carries
// the checksums that tell a later run whether it already holds what it should.
package objstore

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Object is one object under a store's prefix. Key is relative to the prefix.
type Object struct {
	Key  string
	Size int64
	ETag string
	Meta map[string]string // only from Stat: List does not return metadata
}

// Store is a place to keep objects under a prefix.
type Store interface {
	// List returns every object under the prefix.
	List(ctx context.Context) ([]Object, error)
	// Stat returns one object with its metadata; ok is false when there is none.
	Stat(ctx context.Context, key string) (obj Object, ok bool, err error)
	// Put writes size bytes of body as the object key, with its metadata, in one call: the object
	// appears whole or not at all. It returns the new object's ETag.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, meta map[string]string) (string, error)
	// Get writes the object's bytes to w.
	Get(ctx context.Context, key string, w io.Writer) error
	// Check makes sure the store can be used: the bucket exists and the credentials are accepted.
	Check(ctx context.Context) error
	// String names the store as a user wrote it (s3://BUCKET/PREFIX or a folder).
	String() string
}

// URL is a parsed s3://BUCKET/PREFIX.
type URL struct {
	Bucket string
	Prefix string // no leading slash; empty or ending with "/"
}

func (u URL) String() string { return "s3://" + u.Bucket + "/" + u.Prefix }

// IsURL says whether a destination names a bucket rather than a folder.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// ParseURL reads s3://BUCKET/PREFIX; the prefix may be empty.
func ParseURL(s string) (URL, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return URL{}, fmt.Errorf("%s: not an s3://BUCKET/PREFIX address", s)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return URL{}, fmt.Errorf("%s: no bucket: write s3://BUCKET/PREFIX", s)
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	for _, part := range strings.Split(strings.TrimSuffix(prefix, "/"), "/") {
		if part == "." || part == ".." {
			return URL{}, fmt.Errorf("%s: the prefix holds %q", s, part)
		}
	}
	return URL{Bucket: bucket, Prefix: prefix}, nil
}

// The kinds of a StoreError.
const (
	NoBucket    = "no-bucket"   // the bucket does not exist
	Denied      = "denied"      // the credentials are missing, wrong or not allowed
	Unreachable = "unreachable" // the endpoint does not answer
	Failed      = "failed"      // any other refusal
)

// StoreError is a store refusing or failing a request; Kind says why, for the exit code.
type StoreError struct {
	Store string
	Kind  string
	Err   error

	status int    // the HTTP status of a refusal, 0 when no answer came
	code   string // S3's error code, "" when none
}

func (e *StoreError) Error() string {
	why := map[string]string{
		NoBucket:    "the bucket does not exist",
		Denied:      "access denied (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_PROFILE)",
		Unreachable: "the endpoint does not answer (check AWS_ENDPOINT_URL and the network)",
	}[e.Kind]
	if why == "" {
		return fmt.Sprintf("%s: %v", e.Store, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Store, why, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

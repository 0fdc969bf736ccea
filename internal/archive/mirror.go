package archive

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// MirrorName is the file, in a mirror folder, that records the size and ETag of each object as
// it was downloaded: an object the store still lists so is not downloaded again.
const MirrorName = ".ctxc-mirror.json"

// Mirror brings the archived sessions of a store (its *.zst objects) and its manifest into the
// local folder dir,
// under their keys, so that every command reads them as a local archive (and Verify checks it). Only objects that are
// new or changed since the last Mirror into dir are downloaded; each lands whole (a temporary
// file renamed), and files whose object is gone are removed.
func Mirror(ctx context.Context, store objstore.Store, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	objs, err := store.List(ctx)
	if err != nil {
		return err
	}
	had := map[string]objstore.Object{}
	if b, err := os.ReadFile(filepath.Join(dir, MirrorName)); err == nil && json.Unmarshal(b, &had) != nil {
		had = map[string]objstore.Object{} // a shortcut only: a damaged record costs downloads
	}
	now := map[string]objstore.Object{}
	for _, o := range objs {
		if !mirrorable(o.Key) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(o.Key))
		if h, ok := had[o.Key]; !ok || h.Size != o.Size || h.ETag != o.ETag || !sizeIs(p, o.Size) {
			if err := download(ctx, store, o.Key, p); err != nil {
				return err
			}
		}
		now[o.Key] = objstore.Object{Key: o.Key, Size: o.Size, ETag: o.ETag}
	}
	for k := range had {
		if _, ok := now[k]; !ok {
			os.Remove(filepath.Join(dir, filepath.FromSlash(k)))
		}
	}
	b, err := json.Marshal(now)
	if err != nil {
		return err
	}
	return safewrite.WriteAtomic(filepath.Join(dir, MirrorName), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// mirrorable says whether an object's key is the manifest or an archived session that stays
// inside the mirror.
func mirrorable(key string) bool {
	return (key == ManifestName || strings.HasSuffix(key, ".zst")) && filepath.IsLocal(filepath.FromSlash(key)) && path.Clean(key) == key
}

func sizeIs(p string, n int64) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() == n
}

// download writes one object to p whole, or leaves p as it was.
func download(ctx context.Context, store objstore.Store, key, p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return safewrite.WriteAtomic(p, func(w io.Writer) error { return store.Get(ctx, key, w) })
}

// MirrorDir is the local mirror of a store: $XDG_CACHE_HOME/ctxc/archive-mirror/<a digest of
// the endpoint and the address>.
func MirrorDir(endpoint, store string) (string, error) {
	return CacheDir("archive-mirror", endpoint, store)
}

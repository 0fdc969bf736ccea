package objstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// metaDir is the folder, inside a Dir, that holds each object's metadata and ETag.
const metaDir = ".ctxc-meta"

// Dir is a store in a local (or mounted, shared) folder: an object is a file under its key,
// written through a temporary file and a rename; its metadata and ETag (the SHA-256 of its
// bytes) are kept in .ctxc-meta/KEY.json.
type Dir struct{ Root string }

func (d Dir) String() string { return d.Root }

// Check makes sure the folder exists.
func (d Dir) Check(context.Context) error {
	st, err := os.Stat(d.Root)
	if err != nil || !st.IsDir() {
		return &StoreError{Store: d.Root, Kind: NoBucket, Err: errors.New("not a folder")}
	}
	return nil
}

type dirMeta struct {
	ETag string            `json:"etag"`
	Meta map[string]string `json:"meta"`
}

func (d Dir) path(key string) string { return filepath.Join(d.Root, filepath.FromSlash(key)) }
func (d Dir) metaPath(key string) string {
	return filepath.Join(d.Root, metaDir, filepath.FromSlash(key)+".json")
}

// List walks the folder; the metadata folder is not listed.
func (d Dir) List(context.Context) ([]Object, error) {
	var out []Object
	err := filepath.WalkDir(d.Root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == metaDir {
			return filepath.SkipDir
		}
		if !e.Type().IsRegular() || (strings.HasPrefix(e.Name(), ".ctxc-") && strings.HasSuffix(e.Name(), ".tmp")) {
			return nil
		}
		rel, err := filepath.Rel(d.Root, p)
		if err != nil {
			return err
		}
		o, ok, err := d.Stat(context.Background(), filepath.ToSlash(rel))
		if ok {
			out = append(out, o)
		}
		return err
	})
	return out, err
}

// Stat reads an object's size and its recorded metadata.
func (d Dir) Stat(_ context.Context, key string) (Object, bool, error) {
	st, err := os.Stat(d.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return Object{}, false, nil
	}
	if err != nil {
		return Object{}, false, err
	}
	var m dirMeta
	if b, err := os.ReadFile(d.metaPath(key)); err == nil {
		json.Unmarshal(b, &m) // no metadata is an object without checksums: it is sent again
	}
	return Object{Key: key, Size: st.Size(), ETag: m.ETag, Meta: m.Meta}, true, nil
}

// Put writes the object whole (a temporary file renamed), then its metadata.
func (d Dir) Put(_ context.Context, key string, body io.ReadSeeker, size int64, meta map[string]string) (string, error) {
	p := d.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	h := sha256.New()
	err := safewrite.WriteAtomic(p, func(w io.Writer) error {
		n, err := io.Copy(io.MultiWriter(w, h), body)
		if err == nil && n != size {
			err = fmt.Errorf("%s: the body has %d bytes, %d announced", key, n, size)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	etag := hex.EncodeToString(h.Sum(nil))
	b, err := json.Marshal(dirMeta{ETag: etag, Meta: meta})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(d.metaPath(key)), 0o755); err != nil {
		return "", err
	}
	return etag, safewrite.WriteAtomic(d.metaPath(key), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Get copies the object's bytes to w.
func (d Dir) Get(_ context.Context, key string, w io.Writer) error {
	f, err := os.Open(d.path(key))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// UploadedName is the file, beside the manifest of a staging folder, that records what the store
// was last seen to hold: an object the store still lists with the same size and ETag needs no
// request at all. It is a shortcut only: without it, an object's metadata decides.
const UploadedName = ".ctxc-uploaded.json"

// The object metadata an uploaded archive carries (S3 user metadata, x-amz-meta-*).
const (
	MetaZstSHA256 = "ctxc-zst-sha256" // of the object's bytes
	MetaSHA256    = "ctxc-sha256"     // of the session bytes it decodes to
	MetaArchived  = "ctxc-archived"   // how many session bytes it decodes to
)

// Upload is what copying one archive file to the store did (or, in a dry run, would do).
type Upload struct {
	Archive string `json:"archive"`
	Status  string `json:"status"` // "uploaded" or "present"
	Bytes   int64  `json:"bytes"`
}

// The statuses of an Upload.
const (
	UploadDone    = "uploaded"
	UploadPresent = "present"
)

// uploaded is one record of UploadedName.
type uploaded struct {
	ZstSHA256 string `json:"zst_sha256"`
	Size      int64  `json:"size"`
	ETag      string `json:"etag"`
}

// Uploader copies a staging folder (a local archive: its manifest and .zst files) to a store,
// each archive file as one object holding exactly the frames the manifest records, then the
// manifest itself. Only what the store lacks or holds otherwise is sent; each object is written
// whole by one Put, so a run killed at any moment leaves only whole objects, and the next run
// sends the rest.
type Uploader struct {
	Stage  string
	Store  objstore.Store
	DryRun bool
	// Each is called after every archive file, uploaded or found present.
	Each func(Upload)

	seen     map[string]uploaded
	listed   map[string]objstore.Object
	lastSave time.Time
}

// Run uploads what is missing or different, in name order, the manifest last.
func (u *Uploader) Run(ctx context.Context) error {
	man, err := ReadManifest(u.Stage)
	if err != nil {
		return err
	}
	if err := u.load(ctx); err != nil {
		return err
	}
	names := make([]string, 0, len(man.Files))
	for n, e := range man.Files {
		if e.Compressed > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := u.one(ctx, n, man.Files[n]); err != nil {
			return errors.Join(err, u.save(true))
		}
	}
	if err := u.manifest(ctx); err != nil {
		return errors.Join(err, u.save(true))
	}
	return u.save(true)
}

// load reads the record of the last uploads and lists the store.
func (u *Uploader) load(ctx context.Context) error {
	u.seen = map[string]uploaded{}
	if b, err := os.ReadFile(filepath.Join(u.Stage, UploadedName)); err == nil {
		if json.Unmarshal(b, &u.seen) != nil {
			u.seen = map[string]uploaded{} // a shortcut only: a damaged record costs requests
		}
	}
	objs, err := u.Store.List(ctx)
	if err != nil {
		return err
	}
	u.listed = make(map[string]objstore.Object, len(objs))
	for _, o := range objs {
		u.listed[o.Key] = o
	}
	return nil
}

// one uploads one archive file unless the store already holds it.
func (u *Uploader) one(ctx context.Context, name string, e *Entry) error {
	res := Upload{Archive: name, Status: UploadPresent, Bytes: e.Compressed}
	present, err := u.holds(ctx, name, e.ZstSHA256, e.Compressed)
	if err != nil {
		return err
	}
	if !present {
		res.Status = UploadDone
		if !u.DryRun {
			if err := u.put(ctx, name, e); err != nil {
				return err
			}
		}
	}
	if u.Each != nil {
		u.Each(res)
	}
	return u.save(false)
}

// holds says whether the store's object name already has these bytes: by the record of the last
// upload when the listing agrees with it, else by the object's metadata.
func (u *Uploader) holds(ctx context.Context, name, zstSum string, size int64) (bool, error) {
	o, listed := u.listed[name]
	if !listed || o.Size != size {
		return false, nil
	}
	if r, ok := u.seen[name]; ok && r.ZstSHA256 == zstSum && r.Size == size && r.ETag == o.ETag {
		return true, nil
	}
	st, ok, err := u.Store.Stat(ctx, name)
	if err != nil || !ok {
		return false, err
	}
	if st.Size != size || st.Meta[MetaZstSHA256] != zstSum {
		return false, nil
	}
	u.seen[name] = uploaded{ZstSHA256: zstSum, Size: size, ETag: st.ETag}
	return true, nil
}

// put sends the archive file's recorded frames (bytes after them are an interrupted frame the
// next local run cuts) as one object.
func (u *Uploader) put(ctx context.Context, name string, e *Entry) error {
	f, err := os.Open(filepath.Join(u.Stage, filepath.FromSlash(name)))
	if err != nil {
		return err
	}
	defer f.Close()
	meta := map[string]string{
		MetaZstSHA256: e.ZstSHA256,
		MetaSHA256:    e.SHA256,
		MetaArchived:  strconv.FormatInt(e.Archived, 10),
	}
	etag, err := u.Store.Put(ctx, name, io.NewSectionReader(f, 0, e.Compressed), e.Compressed, meta)
	if err != nil {
		return err
	}
	u.seen[name] = uploaded{ZstSHA256: e.ZstSHA256, Size: e.Compressed, ETag: etag}
	return nil
}

// manifest uploads the staging folder's manifest, so that the store says what it holds.
func (u *Uploader) manifest(ctx context.Context) error {
	b, err := os.ReadFile(filepath.Join(u.Stage, ManifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil // a dry run of a first archive: nothing staged
	}
	if err != nil {
		return err
	}
	sum := sha256Hex(b)
	if ok, err := u.holds(ctx, ManifestName, sum, int64(len(b))); err != nil || ok || u.DryRun {
		return err
	}
	etag, err := u.Store.Put(ctx, ManifestName, bytes.NewReader(b), int64(len(b)), map[string]string{MetaZstSHA256: sum})
	if err != nil {
		return err
	}
	u.seen[ManifestName] = uploaded{ZstSHA256: sum, Size: int64(len(b)), ETag: etag}
	return nil
}

// save writes the record of uploads: now, or when saveEvery has passed.
func (u *Uploader) save(now bool) error {
	if u.DryRun || (!now && time.Since(u.lastSave) < saveEvery) {
		return nil
	}
	b, err := json.Marshal(u.seen)
	if err != nil {
		return err
	}
	u.lastSave = time.Now()
	return safewrite.WriteAtomic(filepath.Join(u.Stage, UploadedName), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// sha256Hex is the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// StageDir is the local folder that stages the archive of a store: the archive is written there
// as a local one (frames appended, verified, the manifest), then uploaded. It is
// $XDG_CACHE_HOME/ctxc/archive-stage/<a digest of the endpoint and the address>, so that the same
// bucket name on two endpoints is two folders.
func StageDir(endpoint, store string) (string, error) {
	return CacheDir("archive-stage", endpoint, store)
}

// CacheDir is $XDG_CACHE_HOME/ctxc/KIND/<a digest of the endpoint and the address>: the local
// folder of one kind (a staging folder, a mirror) for one bucket's address.
func CacheDir(kind, endpoint, store string) (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	key := sha256Hex([]byte(endpoint + "\n" + store))
	return filepath.Join(base, "ctxc", kind, key[:16]), nil
}

package archive

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/klauspost/compress/zstd"
)

// The statuses of a Result.
const (
	StatusNew       = "new"         // first archived
	StatusGrew      = "grew"        // a new frame holds the lines it gained
	StatusUnchanged = "unchanged"   // nothing new (or only an unfinished line)
	StatusVersion   = "new-version" // the archived part changed: the old archive is kept, a new one started
)

// saveEvery bounds the work a killed run leaves to redo: the manifest is written at least this
// often while frames are appended (and always at the end, and after every new version).
const saveEvery = time.Second

// Source is one session file and the slash path of its archive under the destination.
type Source struct {
	Path string
	Name string
}

// Result is what archiving one source did (or, in a dry run, would do).
type Result struct {
	Source     string `json:"path"`
	Archive    string `json:"archive"`
	Status     string `json:"status"`
	Bytes      int64  `json:"bytes"`              // plain bytes copied
	Compressed int64  `json:"compressed"`         // bytes appended to the archive
	Held       int64  `json:"held,omitempty"`     // bytes of an unfinished last line left for the next run
	Kept       string `json:"kept,omitempty"`     // the old version's archive, for StatusVersion
	Note       string `json:"note,omitempty"`     // why a new version was started, or what was repaired
	Warning    bool   `json:"warning,omitempty"`  // Note reports damage found in the archive
	Redacted   int    `json:"redacted,omitempty"` // secrets replaced in the bytes copied (Redact)
}

// NameFor is the archive name of file found under root (a directory or the file itself): the
// root's base name, then the file's path below it, then ".zst", so that two roots do not share
// names.
func NameFor(root, file string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	base := escapeBytes(filepath.Base(abs))
	if filepath.Clean(root) == filepath.Clean(file) {
		return base + ".zst", nil
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not below %s", file, root)
	}
	return path.Join(base, escapeBytes(filepath.ToSlash(rel))) + ".zst", nil
}

// escapeBytes writes each byte of s that is not part of valid UTF-8 as %XX, so that a name or
// path holds in the manifest's JSON (which would turn the byte into U+FFFD, a name no file has)
// and in an S3 key (valid UTF-8 only). Valid text, "%" included, is kept as it is: a name is
// changed only where it could not be kept.
func escapeBytes(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "%%%02X", s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// sourceOf is how the manifest names a session file: its absolute path, escaped (escapeBytes).
func sourceOf(p string) (string, error) {
	abs, err := filepath.Abs(p)
	return escapeBytes(abs), err
}

// Archiver archives sources into one destination directory. It holds the destination's lock
// from Open to Close.
type Archiver struct {
	// Redact replaces the secrets inside the JSON string values of the lines archived
	// (redact.JSONLine): the archive is then no byte-exact copy, and a session archived one way
	// is not continued the other.
	Redact bool

	dest     string
	dryRun   bool
	man      *Manifest
	unlock   func()
	enc      *zstd.Encoder
	dec      *zstd.Decoder
	lastSave time.Time
	dirty    bool
}

// Open reads dest's manifest and takes its lock (another ctxc archiving into dest is a
// safewrite.BusyError). A dry run neither locks nor writes anything.
func Open(dest string, dryRun bool) (*Archiver, error) {
	a := &Archiver{dest: dest, dryRun: dryRun, unlock: func() {}}
	if !dryRun {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return nil, err
		}
		unlock, err := safewrite.Lock(filepath.Join(dest, ManifestName))
		if err != nil {
			return nil, err
		}
		a.unlock = unlock
	}
	man, err := ReadManifest(dest)
	if err != nil {
		a.unlock()
		return nil, err
	}
	a.man = man
	a.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	a.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	return a, nil
}

// Prepare records the sources met for the first time before any of their bytes is written, so
// that a run killed while writing a first frame leaves an archive the next run knows to cut back.
// A source whose name another source already archives is an error, returned per name.
func (a *Archiver) Prepare(srcs []Source) map[string]error {
	errs := map[string]error{}
	for _, s := range srcs {
		abs, err := sourceOf(s.Path)
		if err != nil {
			errs[s.Name] = err
			continue
		}
		if e := a.man.Files[s.Name]; e != nil {
			if e.Source != abs {
				errs[s.Name] = fmt.Errorf("%s: %s already archives %s", s.Path, a.path(s.Name), e.Source)
			}
			continue
		}
		if _, err := os.Lstat(a.path(s.Name)); err == nil {
			continue // not ours: File keeps it as an old version
		}
		a.man.Files[s.Name] = &Entry{Source: abs}
		a.dirty = true
	}
	if err := a.save(true); err != nil {
		for _, s := range srcs {
			errs[s.Name] = err
		}
	}
	return errs
}

// Close writes the manifest and releases the lock.
func (a *Archiver) Close() error {
	defer a.unlock()
	a.enc.Close()
	a.dec.Close()
	return a.save(true)
}

func (a *Archiver) path(name string) string { return filepath.Join(a.dest, filepath.FromSlash(name)) }

// save writes the manifest when it changed: now, or when saveEvery has passed.
func (a *Archiver) save(now bool) error {
	if a.dryRun || !a.dirty || (!now && time.Since(a.lastSave) < saveEvery) {
		return nil
	}
	if err := writeManifest(a.dest, a.man); err != nil {
		return err
	}
	a.dirty, a.lastSave = false, time.Now()
	return nil
}

// versionName is the first free name NAME.K.jsonl.zst (K = 1, 2, ...) for an old version of
// the archive name.
func (a *Archiver) versionName(name string) string {
	stem, ext := name, ".zst"
	if s, ok := strings.CutSuffix(name, ".jsonl.zst"); ok {
		stem, ext = s, ".jsonl.zst"
	} else {
		stem = strings.TrimSuffix(name, ".zst")
	}
	for k := 1; ; k++ {
		v := stem + "." + strconv.Itoa(k) + ext
		if _, taken := a.man.Files[v]; taken {
			continue
		}
		if _, err := os.Lstat(a.path(v)); errors.Is(err, os.ErrNotExist) {
			return v
		}
	}
}

// keepOldVersion moves the archive of name aside as an old version (its manifest entry with it)
// and starts a new entry for the source; the manifest is written at once, so that the moved file
// is never taken for the new one's interrupted frame.
func (a *Archiver) keepOldVersion(name, source, reason string) (string, error) {
	old := a.versionName(name)
	if a.dryRun {
		return old, nil
	}
	if err := os.Rename(a.path(name), a.path(old)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if e := a.man.Files[name]; e != nil {
		e.Replaced = reason
		a.man.Files[old] = e
	}
	a.man.Files[name] = &Entry{Source: source}
	a.dirty = true
	return old, a.save(true)
}

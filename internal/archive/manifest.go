// Package archive keeps every session before the agent deletes it: it copies session files into
// a destination directory as standard zstd files, incrementally (each run appends one zstd frame
// holding the complete lines a session gained), verifies every frame it writes against the
// source bytes it came from, and records what it archived in a manifest so that a run killed at
// any moment is completed by the next one. A concatenation of zstd frames decodes to the
// concatenation of their contents, so `zstd -dc NAME.jsonl.zst` gives the session byte for byte.
package archive

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// ManifestName is the manifest's file name inside the destination directory.
const ManifestName = ".ctxc-archive.json"

// manifestVersion is the layout of the manifest this code reads and writes.
const manifestVersion = 1

// Manifest records, for each archive file (by its slash path under the destination), what it
// holds. It only ever records frames that were written, synced and verified.
type Manifest struct {
	Version int               `json:"version"`
	Files   map[string]*Entry `json:"files"`
}

// Entry is what one archive file holds.
type Entry struct {
	Source     string `json:"source"`             // the session file (absolute path)
	Archived   int64  `json:"archived"`           // bytes of the source archived: the offset of the next byte to copy
	Size       int64  `json:"size"`               // the source's size when it was last seen
	MTimeNs    int64  `json:"mtime_ns"`           // the source's modification time when it was last seen
	Compressed int64  `json:"compressed"`         // length of the archive file
	Frames     int    `json:"frames"`             // zstd frames in the archive file
	SHA256     string `json:"sha256"`             // of the archived plain bytes
	ZstSHA256  string `json:"zst_sha256"`         // of the archive file
	Head       string `json:"head_sha256"`        // of the first archived bytes (up to checkSpan)
	Tail       string `json:"tail_sha256"`        // of the last archived bytes (up to checkSpan)
	PlainState []byte `json:"plain_state"`        // the SHA-256 state after the archived bytes
	ZstState   []byte `json:"zst_state"`          // the SHA-256 state after the archive file's bytes
	Replaced   string `json:"replaced,omitempty"` // for an old version: why a new one was started
	Damaged    bool   `json:"damaged,omitempty"`  // the file was found shorter than recorded: not verifiable
	// Redacted: the archive holds the session with its secrets replaced (archive --redact);
	// Plain is then the length of its decoded bytes, which differs from Archived.
	Redacted bool  `json:"redacted,omitempty"`
	Plain    int64 `json:"plain,omitempty"`
}

// PlainLen is the length the archive file decodes to.
func (e *Entry) PlainLen() int64 {
	if e.Redacted {
		return e.Plain
	}
	return e.Archived
}

// ManifestError says the manifest cannot be used; it names the file.
type ManifestError struct {
	Path string
	Err  error
}

func (e *ManifestError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *ManifestError) Unwrap() error { return e.Err }

// ReadManifest reads the manifest of dest; a missing manifest is an empty one.
func ReadManifest(dest string) (*Manifest, error) {
	p := filepath.Join(dest, ManifestName)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{Version: manifestVersion, Files: map[string]*Entry{}}, nil
	}
	if err != nil {
		return nil, &ManifestError{p, err}
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, &ManifestError{p, err}
	}
	return m, nil
}

// ParseManifest decodes and checks a manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("not a ctxc archive manifest: %w", err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("manifest version %d, this ctxc reads version %d", m.Version, manifestVersion)
	}
	if m.Files == nil {
		m.Files = map[string]*Entry{}
	}
	for name, e := range m.Files {
		if err := checkEntry(name, e); err != nil {
			return nil, fmt.Errorf("entry %q: %w", name, err)
		}
	}
	return &m, nil
}

// checkEntry refuses what would make the archive read or write outside the destination or
// resume from an impossible state.
func checkEntry(name string, e *Entry) error {
	switch {
	case e == nil:
		return errors.New("empty")
	case !filepath.IsLocal(filepath.FromSlash(name)) || path.Clean(name) != name || !strings.HasSuffix(name, ".zst"):
		return errors.New("not a .zst path inside the destination")
	case name == ManifestName:
		return errors.New("names the manifest")
	case e.Archived < 0 || e.Size < 0 || e.Compressed < 0 || e.Frames < 0:
		return errors.New("negative length")
	case e.Compressed == 0 && e.Archived != 0:
		return errors.New("bytes archived in an empty file")
	}
	for _, s := range []struct {
		what  string
		state []byte
		sum   string
	}{{"plain", e.PlainState, e.SHA256}, {"zst", e.ZstState, e.ZstSHA256}} {
		h, err := restoreHash(s.state)
		if err != nil {
			return fmt.Errorf("%s hash state: %w", s.what, err)
		}
		if s.sum != "" && hex.EncodeToString(h.Sum(nil)) != s.sum {
			return fmt.Errorf("%s hash state does not match its sha256", s.what)
		}
	}
	return nil
}

// restoreHash returns a SHA-256 continuing from a marshalled state (a fresh one for none).
func restoreHash(state []byte) (hash.Hash, error) {
	h := sha256.New()
	if len(state) == 0 {
		return h, nil
	}
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
		return nil, err
	}
	return h, nil
}

// saveHash marshals a SHA-256 state.
func saveHash(h hash.Hash) []byte {
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic(err) // the standard library's SHA-256 always marshals
	}
	return b
}

// writeManifest replaces the manifest atomically.
func writeManifest(dest string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	return safewrite.WriteAtomic(filepath.Join(dest, ManifestName), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

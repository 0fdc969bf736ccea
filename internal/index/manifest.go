package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/tidwall/gjson"
)

// schema is the version of the index's layout; an index of another version is rebuilt.
const schema = 2

const manifestName = "manifest.json"

// Manifest names an index's segments and the files they cover.
type Manifest struct {
	Schema   int                   `json:"schema"`
	NextFile uint32                `json:"next_file"`
	NextSeg  int                   `json:"next_segment"`
	Segments []SegmentInfo         `json:"segments"`
	Files    map[string]*FileEntry `json:"files"` // by absolute path
}

// SegmentInfo is one segment: its file name in the index folder and what it holds.
type SegmentInfo struct {
	Name   string `json:"name"`
	Docs   int    `json:"docs"`
	Length uint64 `json:"length"` // the terms of its documents
	Text   int64  `json:"text"`   // the raw bytes it covers
}

// FileEntry is one indexed session file: the state it was indexed in and what the search
// shows of it.
type FileEntry struct {
	ID    uint32 `json:"id"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // modification time, ns since the epoch
	// Done is the bytes indexed (complete lines only: a line still being written is indexed
	// once complete), Lines their lines; Tail checks that a grown file only grew: the SHA-256
	// of the tailBytes before Done.
	Done  int64  `json:"done"`
	Lines int    `json:"lines"`
	Tail  string `json:"tail"`
	// Format, Session, Project and Start describe the session for search results.
	Format  string `json:"format"`
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Start   int64  `json:"start,omitempty"` // unix seconds of its first timestamp
	// Compressed: a zstd file (an archived session); Done and Lines count decompressed bytes.
	Compressed bool `json:"compressed,omitempty"`
	// Scan: the file has lines the index cannot vouch for (not JSON): grep always reads it,
	// so that it reports them as a scan does.
	Scan bool `json:"scan,omitempty"`
}

// IndexError says the index cannot be used (missing, damaged, another schema): grep reads the
// files instead, search rebuilds it.
type IndexError struct {
	Path string
	Err  error
}

func (e *IndexError) Error() string { return fmt.Sprintf("index %s: %v", e.Path, e.Err) }
func (e *IndexError) Unwrap() error { return e.Err }

// ErrNoIndex: the folder holds no index yet.
var ErrNoIndex = errors.New("no index here yet (ctxc index builds it)")

// DefaultDir is $XDG_CACHE_HOME/ctxc/index (~/.cache/ctxc/index).
func DefaultDir() (string, error) {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "ctxc", "index"), nil
}

func newManifest() *Manifest {
	return &Manifest{Schema: schema, NextFile: 1, Files: map[string]*FileEntry{}}
}

// readManifest reads dir's manifest.
func readManifest(dir string) (*Manifest, error) {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, &IndexError{dir, errors.New("not an index folder (an index of an older ctxc is a file: remove it)")}
	}
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, &IndexError{dir, ErrNoIndex}
	}
	if err != nil {
		return nil, &IndexError{dir, err}
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, &IndexError{dir, fmt.Errorf("%s: %w", manifestName, err)}
	}
	if m.Schema != schema {
		return nil, &IndexError{dir, fmt.Errorf("index layout %d, this ctxc reads %d (ctxc index rebuilds it)", m.Schema, schema)}
	}
	if m.Files == nil {
		m.Files = map[string]*FileEntry{}
	}
	return m, nil
}

// decodeManifest reads a manifest. The files, most of it (an entry per session of the
// archive, read by every query), are read with gjson, several times faster than
// encoding/json; the rest with encoding/json.
func decodeManifest(data []byte) (*Manifest, error) {
	if !gjson.ValidBytes(data) {
		return nil, errors.New("not valid JSON")
	}
	doc := gjson.ParseBytes(data)
	m := &Manifest{Files: map[string]*FileEntry{}}
	head := struct {
		Schema   int           `json:"schema"`
		NextFile uint32        `json:"next_file"`
		NextSeg  int           `json:"next_segment"`
		Segments []SegmentInfo `json:"segments"`
	}{}
	var rest []byte
	rest = append(rest, '{')
	for _, k := range []string{"schema", "next_file", "next_segment", "segments"} {
		if v := doc.Get(k); v.Exists() {
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(append(append(rest, '"'), k...), '"', ':')
			rest = append(rest, v.Raw...)
		}
	}
	if err := json.Unmarshal(append(rest, '}'), &head); err != nil {
		return nil, err
	}
	m.Schema, m.NextFile, m.NextSeg, m.Segments = head.Schema, head.NextFile, head.NextSeg, head.Segments
	var bad error
	doc.Get("files").ForEach(func(k, v gjson.Result) bool {
		if !v.IsObject() {
			bad = fmt.Errorf("files: %s: not an object", k.String())
			return false
		}
		m.Files[k.String()] = fileEntryOf(v)
		return true
	})
	return m, bad
}

// fileEntryOf reads one file's entry, its members in one pass.
func fileEntryOf(v gjson.Result) *FileEntry {
	e := &FileEntry{}
	v.ForEach(func(k, x gjson.Result) bool {
		switch k.Str {
		case "id":
			e.ID = uint32(x.Uint())
		case "size":
			e.Size = x.Int()
		case "mtime":
			e.MTime = x.Int()
		case "done":
			e.Done = x.Int()
		case "lines":
			e.Lines = int(x.Int())
		case "tail":
			e.Tail = x.Str
		case "format":
			e.Format = x.Str
		case "session":
			e.Session = x.Str
		case "project":
			e.Project = x.Str
		case "start":
			e.Start = x.Int()
		case "compressed":
			e.Compressed = x.Bool()
		case "scan":
			e.Scan = x.Bool()
		}
		return true
	})
	return e
}

// write replaces dir's manifest atomically.
func (m *Manifest) write(dir string) error {
	return safewrite.WriteAtomic(filepath.Join(dir, manifestName), func(w io.Writer) error {
		return json.NewEncoder(w).Encode(m)
	})
}

// byID maps the current files' ids to their paths; documents of other ids are dead (of a file
// rewritten or removed since).
func (m *Manifest) byID() map[uint32]string {
	out := make(map[uint32]string, len(m.Files))
	for p, e := range m.Files {
		out[e.ID] = p
	}
	return out
}

// under reports whether path is root or inside it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

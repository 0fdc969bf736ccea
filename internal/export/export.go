// Package export writes sessions as Parquet tables a team can query (ctxc export --parquet):
// sessions, messages (one row per message `ctxc stats` counts), usage (the usage agents
// recorded, per response and model, priced) and compactions (their span, tokens and audit),
// each Hive-partitioned by agent and date (messages/agent=codex/date=2026-11-28/part-KEY.parquet),
// one part per session and table. The export is incremental: a session whose file did not
// change since the last run is not read again; one that changed is read anew and its parts are
// replaced, each atomically. Text is redacted (package redact) unless asked not to; the
// sessions themselves are only read. To an S3 bucket, the parts are written into a local
// staging folder and each part written is sent as one object.
//
// The package imports neither cobra nor viper.
package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
)

// StateName is the file in DEST that says what each session's last export was.
const StateName = ".ctxc-export.json"

// Options of an export.
type Options struct {
	Format transcript.Format // forced format; FormatUnknown detects
	Redact bool              // replace secrets in the text written
	DryRun bool              // read and count; write nothing
	Prices *usage.Prices
	// Store, when set, receives every part written (its key: the part's path below DEST) and
	// the state last; DEST is then its staging folder.
	Store objstore.Store
	// Now is the export's time (exported_at); time.Now when nil.
	Now func() time.Time
}

// Source is one session file and its name in the tables (as ctxc archive names it).
type Source struct {
	Path string
	Name string
}

// Status says what an export did with a session.
type Status string

// The statuses.
const (
	StatusNew       Status = "new"       // exported for the first time
	StatusChanged   Status = "changed"   // its file changed: exported anew, its parts replaced
	StatusUnchanged Status = "unchanged" // as at the last export: nothing written
)

// Result is what an export did with one session (a --json line).
type Result struct {
	Path        string   `json:"path"`
	Session     string   `json:"session"`
	Status      Status   `json:"status"`
	Agent       string   `json:"agent,omitempty"`
	Date        string   `json:"date,omitempty"`
	Messages    int      `json:"messages"`
	Usage       int      `json:"usage"`
	Compactions int      `json:"compactions"`
	Redacted    int      `json:"redacted"`
	Parts       []string `json:"parts,omitempty"` // written, relative to DEST
	Bytes       int64    `json:"bytes"`           // Parquet bytes written

	// Warnings are the lines of the session skipped as not valid JSON (file and line each).
	Warnings []transcript.Warning `json:"-"`
}

// Exporter exports sessions into one destination folder, holding its lock from Open to Close.
// File may be called for several sessions at once.
type Exporter struct {
	dest   string
	opts   Options
	unlock func()
	now    time.Time

	mu    sync.Mutex // guards state and dirty
	state *state
	dirty bool
}

// state is what DEST's last exports were, per session name.
type state struct {
	Version  int                     `json:"version"`
	Sessions map[string]sessionState `json:"sessions"`
}

// sessionState is a session's last export: the file as it was then and the parts written.
type sessionState struct {
	Path   string   `json:"path"`
	Size   int64    `json:"size"`
	MTime  int64    `json:"mtime_ns"`
	Redact bool     `json:"redact"`
	Schema int      `json:"schema_version"` // of the parts written
	Parts  []string `json:"parts"`
}

const stateVersion = 1

// Open reads dest's state and takes its lock (another ctxc exporting into dest is a
// safewrite.BusyError). A dry run neither locks nor writes anything.
func Open(dest string, o Options) (*Exporter, error) {
	e := &Exporter{dest: dest, opts: o, unlock: func() {}, now: time.Now()}
	if o.Now != nil {
		e.now = o.Now()
	}
	if e.opts.Prices == nil {
		e.opts.Prices = usage.Shipped()
	}
	if !o.DryRun {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return nil, err
		}
		unlock, err := safewrite.Lock(filepath.Join(dest, StateName))
		if err != nil {
			return nil, err
		}
		e.unlock = unlock
	}
	st, err := readState(dest)
	if err != nil {
		e.unlock()
		return nil, err
	}
	e.state = st
	return e, nil
}

// readState reads DEST's state; none yet is an empty one.
func readState(dest string) (*state, error) {
	st := &state{Version: stateVersion, Sessions: map[string]sessionState{}}
	b, err := os.ReadFile(filepath.Join(dest, StateName))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, &transcript.DataError{Path: filepath.Join(dest, StateName), Msg: "not an export state: " + err.Error()}
	}
	if st.Sessions == nil {
		st.Sessions = map[string]sessionState{}
	}
	return st, nil
}

// File exports one session: nothing when its file is as at the last export, else all its
// parts anew.
func (e *Exporter) File(ctx context.Context, src Source) (Result, error) {
	r := Result{Path: src.Path, Session: src.Name, Status: StatusNew}
	size, mtime, err := modTime(src.Path)
	if err != nil {
		return r, err
	}
	e.mu.Lock()
	prev, known := e.state.Sessions[src.Name]
	e.mu.Unlock()
	if known {
		r.Status = StatusChanged
		if e.unchanged(prev, size, mtime) {
			r.Status = StatusUnchanged
			return r, nil
		}
	}
	s, err := readSession(ctx, src, &e.opts, e.now)
	if s != nil {
		r.Warnings = s.warnings
	}
	if err != nil {
		return r, err
	}
	r.Agent, r.Date = s.agent, s.date
	r.Messages, r.Usage, r.Compactions, r.Redacted = len(s.messages), len(s.usage), len(s.compactions), s.redacted
	if e.opts.DryRun {
		return r, nil
	}
	if err := e.writeParts(ctx, src.Name, s, &r); err != nil {
		return r, err
	}
	e.removeStale(prev.Parts, r.Parts)
	e.mu.Lock()
	e.state.Sessions[src.Name] = sessionState{Path: src.Path, Size: size, MTime: mtime, Redact: e.opts.Redact, Schema: SchemaVersion, Parts: r.Parts}
	e.dirty = true
	e.mu.Unlock()
	return r, nil
}

// unchanged says whether a session's last export still stands: same file, same redaction, same
// schema.
func (e *Exporter) unchanged(prev sessionState, size, mtime int64) bool {
	return prev.Size == size && prev.MTime == mtime && prev.Redact == e.opts.Redact && prev.Schema == SchemaVersion
}

// writeParts writes the session's part of every table that has rows for it, and sends each to
// the store.
func (e *Exporter) writeParts(ctx context.Context, name string, s *session, r *Result) error {
	key := partKey(name)
	writes := []struct {
		table string
		rows  int
		write func(path string) error
	}{
		{TableSessions, len(s.sessions), func(p string) error { return writePart(p, s.sessions) }},
		{TableMessages, len(s.messages), func(p string) error { return writePart(p, s.messages) }},
		{TableUsage, len(s.usage), func(p string) error { return writePart(p, s.usage) }},
		{TableCompactions, len(s.compactions), func(p string) error { return writePart(p, s.compactions) }},
	}
	for _, w := range writes {
		if w.rows == 0 {
			continue
		}
		rel := PartPath(w.table, s.agent, s.date, key)
		full := filepath.Join(e.dest, filepath.FromSlash(rel))
		if err := w.write(full); err != nil {
			return err
		}
		n, err := e.send(ctx, rel, full)
		if err != nil {
			return err
		}
		r.Parts = append(r.Parts, rel)
		r.Bytes += n
	}
	return nil
}

// send puts a written part into the store, when there is one, and returns its size.
func (e *Exporter) send(ctx context.Context, rel, full string) (int64, error) {
	f, err := os.Open(full)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if e.opts.Store != nil {
		if _, err := e.opts.Store.Put(ctx, rel, f, fi.Size(), nil); err != nil {
			return 0, err
		}
	}
	return fi.Size(), nil
}

// removeStale removes the parts of a session's last export that this one did not write again
// (a table it has no rows for any more, a partition that changed). A store keeps its objects:
// the state it receives lists the parts that count.
func (e *Exporter) removeStale(old, written []string) {
	for _, p := range old {
		if !contains(written, p) {
			os.Remove(filepath.Join(e.dest, filepath.FromSlash(p)))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PartPath is where a session's part of a table is, below DEST.
func PartPath(table, agent, date, key string) string {
	return path.Join(table, "agent="+agent, "date="+date, "part-"+key+".parquet")
}

// partKeyLen is how many hex digits of the session name's SHA-256 name its parts.
const partKeyLen = 16

// partKey names a session's parts: a digest of its name, the same at every export.
func partKey(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])[:partKeyLen]
}

// Close writes the state (and sends it to the store) and lets the lock go.
func (e *Exporter) Close(ctx context.Context) error {
	defer e.unlock()
	if e.opts.DryRun || !e.dirty {
		return nil
	}
	full := filepath.Join(e.dest, StateName)
	err := safewrite.WriteAtomic(full, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(e.state)
	})
	if err != nil {
		return err
	}
	_, err = e.send(ctx, StateName, full)
	return err
}

// Package openclawstore reads OpenClaw's SQLite session store (OpenClaw 2026.8 and later:
// agents/<agent>/agent/openclaw-agent.sqlite, table transcript_events) without ever locking
// out the OpenClaw that writes it: each session becomes the pi-format JSONL that OpenClaw
// imported it from or would have written, one event a line, for the pi reader of
// internal/transcript. A session is named STORE#SESSION-ID (docs/formats.md).
package openclawstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
	_ "modernc.org/sqlite" // pure-Go SQLite
)

// FileName is the name OpenClaw gives an agent's store, in agents/<agent>/agent/.
const FileName = "openclaw-agent.sqlite"

// Sep separates the store's path from a session id in a session's name: STORE#SESSION-ID.
const Sep = storefiles.Sep

// BusyTimeout is how long a read waits for a lock OpenClaw holds (a rollback-journal commit):
// short, since a reader that waits never delays the writer, and a long wait means a stuck one.
const BusyTimeout = 5 * time.Second

// batchRows and batchBytes bound one read: each batch is its own read transaction, so that in
// rollback-journal mode the shared lock that keeps OpenClaw's commit waiting lasts only as long
// as it takes to copy that many rows out.
const (
	batchRows  = 256
	batchBytes = 8 << 20
)

// Store is one open store, read-only.
type Store struct {
	Path string
	db   *sql.DB
}

// Session is one session of a store: its id and how many events it holds.
type Session struct {
	ID     string
	Events int
}

// Name is the session's name for the commands: STORE#SESSION-ID.
func (s Session) Name(store string) string { return store + Sep + s.ID }

// ReadOnly is the error of a command that writes into a session of an OpenClaw store: ctxc
// only reads the store.
func ReadOnly(name string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: name, Reason: "is a session of an OpenClaw SQLite store, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new pi-format session"}
}

// EventError is an event of the store that is not one JSON value.
type EventError struct {
	Store   string
	Session string
	Seq     int64
	RowID   int64
	Msg     string
}

func (e *EventError) Error() string {
	return fmt.Sprintf("%s%s%s: event seq %d (rowid %d): %s", e.Store, Sep, e.Session, e.Seq, e.RowID, e.Msg)
}

// NamedAsStore reports whether path has a store's name (*.sqlite): only such a file is opened
// to be checked by IsStoreFile.
func NamedAsStore(path string) bool { return strings.HasSuffix(path, ".sqlite") }

// Open opens a store read-only and checks that it has OpenClaw's transcript_events table.
func Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", storefiles.ReadOnlyDSN(path, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{Path: path, db: db}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'transcript_events'`).Scan(&n)
	if err == nil && n == 0 {
		err = errors.New("not an OpenClaw session store (no transcript_events table)")
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Sessions lists the sessions that have events, in the order they began (then by id).
func (s *Store) Sessions() ([]Session, error) {
	rows, err := s.db.Query(`SELECT session_id, count(*) FROM transcript_events
		GROUP BY session_id ORDER BY min(created_at), session_id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var ss Session
		if err := rows.Scan(&ss.ID, &ss.Events); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	return out, nil
}

// row is one transcript_events row as stored.
type row struct {
	rowid, seq int64
	json       sql.NullString
	zstd       []byte
	rawBytes   sql.NullInt64
}

// Export writes one session as pi-format JSONL: every event of transcript_events in seq order,
// one a line, decompressed where OpenClaw stored it compressed. It returns the number of events.
// An event that is not one JSON value is an EventError naming the store, session, seq and rowid.
func (s *Store) Export(ctx context.Context, session string, w io.Writer) (int, error) {
	n, after, found := 0, int64(-1)<<62, false
	for {
		batch, more, err := s.readBatch(ctx, session, after)
		if err != nil {
			return n, fmt.Errorf("%s%s%s: %w", s.Path, Sep, session, err)
		}
		for _, r := range batch {
			line, err := decodeEvent(r)
			if err != nil {
				return n, &EventError{Store: s.Path, Session: session, Seq: r.seq, RowID: r.rowid, Msg: err.Error()}
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return n, err
			}
			n++
			after = r.seq
		}
		found = found || len(batch) > 0
		if !more {
			break
		}
	}
	if !found {
		return 0, fmt.Errorf("%s%s%s: no such session in this store: %w", s.Path, Sep, session, fs.ErrNotExist)
	}
	return n, nil
}

// readBatch copies up to batchRows events after seq `after` out of the store in one short read
// transaction, closed before the events are decoded.
func (s *Store) readBatch(ctx context.Context, session string, after int64) (batch []row, more bool, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rowid, seq, event_json, event_zstd, event_utf8_bytes
		FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		session, after, batchRows)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []row
	size := 0
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.rowid, &r.seq, &r.json, &r.zstd, &r.rawBytes); err != nil {
			return nil, false, err
		}
		out = append(out, r)
		if size += len(r.json.String) + len(r.zstd); size >= batchBytes {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return out, len(out) == batchRows || size >= batchBytes, nil
}

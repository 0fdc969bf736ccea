// Package goosestore reads Goose's SQLite session store (Goose 1.x:
// ~/.local/share/goose/sessions/sessions.db, tables sessions and messages) without ever locking
// out the Goose that writes it: each session becomes JSON lines, a header
// {"type":"goose","sessionId","name","workingDir"} then each message row in the order Goose
// reads them ({"role","content","metadata","created","messageId"}, content and metadata the
// row's JSON as stored), for the goose reader of internal/transcript. A session is named
// STORE#SESSION-ID (docs/formats.md).
package goosestore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
	_ "modernc.org/sqlite" // pure-Go SQLite
)

// FileName is the name Goose gives its store, in its data folder's sessions/.
const FileName = "sessions.db"

// HeaderType is the type of the export's first line.
const HeaderType = "goose"

// Sep separates the store's path from a session id in a session's name: STORE#SESSION-ID.
const Sep = storefiles.Sep

// BusyTimeout is how long a read waits for a lock Goose holds: short, since a reader that waits
// never delays the writer.
const BusyTimeout = 5 * time.Second

// batchRows and batchBytes bound one read: each batch is its own read transaction.
const (
	batchRows  = 256
	batchBytes = 8 << 20
)

// Store is one open store, read-only.
type Store struct {
	Path string
	db   *sql.DB
}

// ReadOnly is the error of a command that writes into a session of Goose's store.
func ReadOnly(name string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: name, Reason: "is a session of Goose's SQLite store, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// RowError is a message row whose content or metadata is not valid JSON.
type RowError struct {
	Store, Session string
	RowID          int64
	Msg            string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%s%s%s: message row %d: %s", e.Store, Sep, e.Session, e.RowID, e.Msg)
}

// NamedAsStore reports whether path has the store's name: only such a file is opened to be
// checked by IsStoreFile.
func NamedAsStore(path string) bool { return filepath.Base(path) == FileName }

// Open opens a store read-only and checks that it has Goose's sessions and messages tables.
func Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", storefiles.ReadOnlyDSN(path, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('sessions', 'messages')`).Scan(&n)
	if err == nil && n != 2 {
		err = errors.New("not a Goose session store (no sessions and messages tables)")
	}
	if err == nil {
		// (opencode's and Kilo's stores have no session_id column in a messages table)
		err = db.QueryRow(`SELECT count(*) FROM pragma_table_info('messages') WHERE name IN ('session_id', 'content_json')`).Scan(&n)
		if err == nil && n != 2 {
			err = errors.New("not a Goose session store (its messages table has no session_id and content_json)")
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Store{Path: path, db: db}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// SessionIDs lists the ids of the sessions that have messages, in the order they began.
func (s *Store) SessionIDs() ([]string, error) {
	rows, err := s.db.Query(`SELECT session_id FROM messages GROUP BY session_id ORDER BY min(id), session_id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	return out, nil
}

// header is the export's first line.
type header struct {
	Type       string `json:"type"`
	SessionID  string `json:"sessionId"`
	Name       string `json:"name"`
	WorkingDir string `json:"workingDir"`
}

// row is one messages row as stored.
type row struct {
	rowid         int64
	messageID     sql.NullString
	role, content string
	metadata      sql.NullString
	created       int64
}

// line is one message of the export.
type line struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Created   int64           `json:"created"`
	MessageID string          `json:"messageId,omitempty"`
}

// Export writes one session as JSON lines: its header, then every message in the order Goose
// reads them (created_timestamp, then id). It returns the number of messages. A row whose
// content or metadata is not JSON is a RowError naming the store, session and row.
func (s *Store) Export(ctx context.Context, session string, w io.Writer) (int, error) {
	var h header
	err := s.db.QueryRowContext(ctx, `SELECT id, name, working_dir FROM sessions WHERE id = ?`, session).
		Scan(&h.SessionID, &h.Name, &h.WorkingDir)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s%s%s: no such session in this store: %w", s.Path, Sep, session, fs.ErrNotExist)
	}
	if err != nil {
		return 0, fmt.Errorf("%s%s%s: %w", s.Path, Sep, session, err)
	}
	h.Type = HeaderType
	if err := writeLine(w, h); err != nil {
		return 0, err
	}
	n, afterTS, afterID := 0, int64(-1)<<62, int64(-1)<<62
	for {
		batch, more, err := s.readBatch(ctx, session, afterTS, afterID)
		if err != nil {
			return n, fmt.Errorf("%s%s%s: %w", s.Path, Sep, session, err)
		}
		for _, r := range batch {
			l, err := exportRow(r)
			if err != nil {
				return n, &RowError{Store: s.Path, Session: session, RowID: r.rowid, Msg: err.Error()}
			}
			if err := writeLine(w, l); err != nil {
				return n, err
			}
			n++
			afterTS, afterID = r.created, r.rowid
		}
		if !more {
			return n, nil
		}
	}
}

// exportRow checks a row's JSON and makes it a line.
func exportRow(r row) (line, error) {
	if !jsonl.Valid([]byte(r.content)) {
		return line{}, errors.New("content_json is not valid JSON")
	}
	l := line{Role: r.role, Content: json.RawMessage(r.content), Created: r.created, MessageID: r.messageID.String}
	if r.metadata.Valid && r.metadata.String != "" {
		if !jsonl.Valid([]byte(r.metadata.String)) {
			return line{}, errors.New("metadata_json is not valid JSON")
		}
		l.Metadata = json.RawMessage(r.metadata.String)
	}
	return l, nil
}

// writeLine writes v as one compact JSON line, its text as stored (no HTML escapes: a search
// for "<turn-context>" meets the bytes of the line).
func writeLine(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// readBatch copies up to batchRows messages after (afterTS, afterID) out of the store in one
// short read transaction, closed before they are written.
func (s *Store) readBatch(ctx context.Context, session string, afterTS, afterID int64) (batch []row, more bool, err error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, message_id, role, content_json, metadata_json, created_timestamp
		FROM messages WHERE session_id = ? AND (created_timestamp > ? OR (created_timestamp = ? AND id > ?))
		ORDER BY created_timestamp, id LIMIT ?`, session, afterTS, afterTS, afterID, batchRows)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	size := 0
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.rowid, &r.messageID, &r.role, &r.content, &r.metadata, &r.created); err != nil {
			return nil, false, err
		}
		batch = append(batch, r)
		if size += len(r.content) + len(r.metadata.String); size >= batchBytes {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return batch, len(batch) == batchRows || size >= batchBytes, nil
}

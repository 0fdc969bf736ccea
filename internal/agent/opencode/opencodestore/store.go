// Package opencodestore reads opencode's SQLite store (opencode 1.2 and later:
// ~/.local/share/opencode/opencode.db, or $XDG_DATA_HOME/opencode/opencode.db; tables session,
// message and part, each row's "data" a JSON object), and Kilo Code CLI's, which has its schema
// (~/.local/share/kilo/kilo.db: Kilo), without ever holding up the agent that writes it:
// read-only, in short batches. Each session becomes one message a line, as opencode's
// own MessageV2.WithParts ({"info":{...},"parts":[...]}, the message's and its parts' data with
// their ids put back), in the order opencode reads them, for the opencode reader of
// internal/transcript. A session is named STORE#SESSION-ID (docs/formats.md).
package opencodestore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/storefiles"
	_ "modernc.org/sqlite" // pure-Go SQLite
)

// FileName is the name of opencode's store, in its data folder (opencode/ under XDG_DATA_HOME,
// by default ~/.local/share). A build of another release channel names it opencode-CHANNEL.db.
const FileName = "opencode.db"

// Sep separates the store's path from a session id in a session's name: STORE#SESSION-ID.
const Sep = storefiles.Sep

// BusyTimeout is how long a read waits for a lock opencode holds: short, since a reader that
// waits never delays the writer (opencode runs the store in WAL mode).
const BusyTimeout = 5 * time.Second

// batchRows bounds one read: each batch of messages (and their parts) is its own read
// transaction, so that a snapshot is held only as long as it takes to copy them out.
const batchRows = 256

// Store is one open store, read-only. Its exports may run at once (storefiles shares one open
// store between the readers of its sessions): each takes the store's one connection in turn, a
// batch at a time.
type Store struct {
	Path  string
	agent *Agent
	db    *sql.DB

	prepared sync.Mutex
	stmts    *statements
}

// statements are the queries of an export, prepared once for all the sessions read from an open
// store.
type statements struct {
	first *sql.Stmt // a session's first batch of messages
	after *sql.Stmt // the batch after a message
	parts *sql.Stmt // a session's parts
}

// statements prepares the queries of an export, once (again after a failure).
func (s *Store) statements() (*statements, error) {
	s.prepared.Lock()
	defer s.prepared.Unlock()
	if s.stmts != nil {
		return s.stmts, nil
	}
	var st statements
	var err error
	for _, q := range []struct {
		to  **sql.Stmt
		sql string
	}{
		{&st.first, `SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id LIMIT ?`},
		{&st.after, `SELECT id, time_created, data FROM message WHERE session_id = ?
			AND (time_created > ? OR (time_created = ? AND id > ?)) ORDER BY time_created, id LIMIT ?`},
		{&st.parts, `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`},
	} {
		if err == nil {
			*q.to, err = s.db.Prepare(q.sql)
		}
	}
	if err != nil {
		st.close()
		return nil, err
	}
	s.stmts = &st
	return s.stmts, nil
}

func (st *statements) close() {
	for _, q := range []*sql.Stmt{st.first, st.after, st.parts} {
		if q != nil {
			q.Close()
		}
	}
}

// Session is one session of a store: its id and how many messages it holds.
type Session struct {
	ID       string
	Messages int
}

// Name is the session's name for the commands: STORE#SESSION-ID.
func (s Session) Name(store string) string { return store + Sep + s.ID }

// RowError is a row of the store whose data is not one JSON object.
type RowError struct {
	Store, Session string
	Table, ID      string
	Msg            string
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%s%s%s: %s %s: %s", e.Store, Sep, e.Session, e.Table, e.ID, e.Msg)
}

// Open opens a store of the agent read-only and checks that it has opencode's message and part
// tables.
func (a *Agent) Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", storefiles.ReadOnlyDSN(path, BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{Path: path, agent: a, db: db}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	if err == nil && n != 3 {
		err = fmt.Errorf("not a store of %s (no session, message and part tables)", a.Name)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Close closes the store.
func (s *Store) Close() error {
	s.prepared.Lock()
	if s.stmts != nil {
		s.stmts.close()
	}
	s.prepared.Unlock()
	return s.db.Close()
}

// Sessions lists the sessions that have messages, in the order they began (then by id).
func (s *Store) Sessions() ([]Session, error) {
	rows, err := s.db.Query(`SELECT session_id, count(*) FROM message
		GROUP BY session_id ORDER BY min(time_created), session_id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var ss Session
		if err := rows.Scan(&ss.ID, &ss.Messages); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	return out, nil
}

// message is one message row and its parts' rows, as stored.
type message struct {
	id      string
	created int64
	data    string
	parts   []part
}

type part struct {
	id, data string
}

// Export writes one session, one message a line ({"info":{...},"parts":[...]}), in the order
// opencode reads them: by time created, then id; each message's parts by id. It returns the
// number of messages. A row whose data is not a JSON object is a RowError naming the store,
// session, table and id.
func (s *Store) Export(ctx context.Context, session string, w io.Writer) (int, error) {
	n := 0
	var after *message
	var line bytes.Buffer
	for {
		batch, err := s.readBatch(ctx, session, after)
		if err != nil {
			return n, fmt.Errorf("%s%s%s: %w", s.Path, Sep, session, err)
		}
		for i := range batch {
			line.Reset()
			if err := encodeMessage(&line, s.agent.line, session, &batch[i]); err != nil {
				err.Store = s.Path
				return n, err
			}
			if _, err := w.Write(line.Bytes()); err != nil {
				return n, err
			}
			n++
		}
		if len(batch) < batchRows {
			break
		}
		after = &batch[len(batch)-1]
	}
	if n == 0 {
		return 0, fmt.Errorf("%s%s%s: no such session in this store: %w", s.Path, Sep, session, fs.ErrNotExist)
	}
	return n, nil
}

// readBatch copies up to batchRows messages after `after` (nil: from the first) and their parts
// out of the store in one short read transaction.
func (s *Store) readBatch(ctx context.Context, session string, after *message) ([]message, error) {
	st, err := s.statements()
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var rows *sql.Rows
	if after == nil {
		rows, err = tx.StmtContext(ctx, st.first).QueryContext(ctx, session, batchRows)
	} else {
		rows, err = tx.StmtContext(ctx, st.after).QueryContext(ctx, session, after.created, after.created, after.id, batchRows)
	}
	if err != nil {
		return nil, err
	}
	var out []message
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.id, &m.created, &m.data); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	whole := after == nil && len(out) < batchRows
	return out, readParts(ctx, tx, st, session, out, whole)
}

// readParts reads the parts of the messages of a batch: those of the whole session when the batch
// is the whole session (one prepared query for every session that fits in a batch), else those
// of the batch's messages. Parts whose message is not in the batch are left out either way.
func readParts(ctx context.Context, tx *sql.Tx, st *statements, session string, msgs []message, whole bool) error {
	if len(msgs) == 0 {
		return nil
	}
	at := make(map[string]int, len(msgs))
	args := []any{session}
	for i, m := range msgs {
		at[m.id] = i
		args = append(args, m.id)
	}
	var rows *sql.Rows
	var err error
	if whole {
		rows, err = tx.StmtContext(ctx, st.parts).QueryContext(ctx, session)
	} else {
		rows, err = tx.QueryContext(ctx, `SELECT id, message_id, data FROM part WHERE session_id = ? AND message_id IN (?`+
			strings.Repeat(", ?", len(msgs)-1)+`) ORDER BY message_id, id`, args...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p part
		var msg string
		if err := rows.Scan(&p.id, &msg, &p.data); err != nil {
			return err
		}
		if i, ok := at[msg]; ok {
			msgs[i].parts = append(msgs[i].parts, p)
		}
	}
	return rows.Err()
}

// encodeMessage is one message's line, starting as start says (`{"info":`, or `{"agent":"kilo",
// "info":` for Kilo's): its data with "id" and "sessionID" put back as opencode does when it
// reads the row, and its parts' data with "id", "sessionID" and "messageID".
func encodeMessage(b *bytes.Buffer, start, session string, m *message) *RowError {
	b.WriteString(start)
	if err := withIDs(b, m.data, "id", m.id, "sessionID", session); err != nil {
		return &RowError{Session: session, Table: "message", ID: m.id, Msg: err.Error()}
	}
	b.WriteString(`,"parts":[`)
	for i, p := range m.parts {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := withIDs(b, p.data, "id", p.id, "sessionID", session, "messageID", m.id); err != nil {
			return &RowError{Session: session, Table: "part", ID: p.id, Msg: err.Error()}
		}
	}
	b.WriteString("]}\n")
	return nil
}

// withIDs writes a row's data, a JSON object, with the given members (key, value pairs) after
// its own, on one line.
func withIDs(b *bytes.Buffer, data string, kv ...string) error {
	d := strings.TrimSpace(data)
	if !jsonl.Valid(unsafe.Slice(unsafe.StringData(d), len(d))) || !jsonl.Value(d).IsObject() { // (read, never written)
		return errors.New("data is not a JSON object")
	}
	if strings.ContainsAny(d, "\r\n") { // (a line break in an object is white space between tokens)
		var c bytes.Buffer
		if err := json.Compact(&c, []byte(d)); err != nil {
			return err
		}
		d = c.String()
	}
	inner := strings.TrimSpace(d[1 : len(d)-1])
	b.WriteByte('{')
	b.WriteString(inner)
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 || inner != "" {
			b.WriteByte(',')
		}
		b.Write(jsonl.Quote(kv[i]))
		b.WriteByte(':')
		b.Write(jsonl.Quote(kv[i+1]))
	}
	b.WriteByte('}')
	return nil
}

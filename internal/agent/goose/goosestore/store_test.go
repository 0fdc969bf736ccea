package goosestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// gooseSchema is the part of Goose 1.52.0's schema the store reads.
const gooseSchema = `CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
	working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT,
	session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, content_json TEXT NOT NULL,
	created_timestamp INTEGER NOT NULL, metadata_json TEXT);`

// newStore writes a store of Goose's schema holding rows (session, role, content, metadata,
// created) and returns its path.
func newStore(t *testing.T, schema string, rows [][]any) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(schema, "content_json") {
		for _, id := range []string{"s1", "s2"} {
			if _, err := db.Exec(`INSERT INTO sessions (id, name, working_dir) VALUES (?, 'n', '/w')`, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range rows {
		if _, err := db.Exec(`INSERT INTO messages (session_id, role, content_json, metadata_json, created_timestamp)
			VALUES (?, ?, ?, ?, ?)`, r...); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestExport(t *testing.T) {
	text := `[{"type":"text","text":"<a>"}]`
	for _, tc := range []struct {
		name    string
		rows    [][]any
		session string
		want    []string // the lines after the header
		err     string
	}{
		{"in Goose's order", [][]any{{"s1", "user", text, nil, 5}, {"s1", "assistant", `[]`, `{"agentVisible":true}`, 3},
			{"s2", "user", text, nil, 1}}, "s1",
			[]string{`{"role":"assistant","content":[],"metadata":{"agentVisible":true},"created":3}`,
				`{"role":"user","content":[{"type":"text","text":"<a>"}],"created":5}`}, ""},
		{"no such session", nil, "s3", nil, "no such session"},
		{"a session without messages", nil, "s2", nil, ""},
		{"bad content", [][]any{{"s1", "user", `[{"type":`, nil, 1}}, "s1", nil, "message row 1: content_json is not valid JSON"},
		{"bad metadata", [][]any{{"s1", "user", text, `{`, 1}}, "s1", nil, "message row 1: metadata_json is not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(newStore(t, gooseSchema, tc.rows))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var out bytes.Buffer
			n, err := s.Export(context.Background(), tc.session, &out)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if tc.name == "no such session" && !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("%v is not fs.ErrNotExist", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if lines[0] != `{"type":"goose","sessionId":"`+tc.session+`","name":"n","workingDir":"/w"}` {
				t.Errorf("header %s", lines[0])
			}
			if n != len(tc.want) || strings.Join(lines[1:], "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("%d messages:\n%s\nwant\n%s", n, strings.Join(lines[1:], "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestNotAGooseStore: another agent's sessions.db (Cline CLI's list of its sessions) is none of
// Goose's.
func TestNotAGooseStore(t *testing.T) {
	path := newStore(t, `CREATE TABLE sessions (id TEXT); CREATE TABLE messages (id TEXT, data TEXT);`, nil)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "not a Goose session store") {
		t.Errorf("Open: %v", err)
	}
	if Sessions.IsStoreFile(path) {
		t.Error("IsStoreFile of another agent's sessions.db")
	}
	if !Sessions.IsStoreFile(newStore(t, gooseSchema, nil)) {
		t.Error("IsStoreFile of a Goose store")
	}
}

func TestSessionIDs(t *testing.T) {
	s, err := Open(newStore(t, gooseSchema, [][]any{{"s2", "user", `[]`, nil, 1}, {"s1", "user", `[]`, nil, 2}}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.SessionIDs()
	if err != nil || strings.Join(ids, ",") != "s2,s1" {
		t.Errorf("%v %v", ids, err)
	}
}

// TestExportBesideAWriter: Goose keeps its store in WAL mode; while Goose holds a write
// transaction open, an export reads what was committed, and Goose's commit after it does not wait.
func TestExportBesideAWriter(t *testing.T) {
	path := newStore(t, gooseSchema, [][]any{{"s1", "user", `[{"type":"text","text":"a"}]`, nil, 1}})
	w, err := sql.Open("sqlite", path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('s1', 'assistant', '[]', 2)`); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	if n, err := s.Export(context.Background(), "s1", &out); err != nil || n != 1 {
		t.Fatalf("export beside an open write: %d messages, %v", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("the writer's commit after the export: %v", err)
	}
	out.Reset()
	if n, err := s.Export(context.Background(), "s1", &out); err != nil || n != 2 {
		t.Fatalf("export after the commit: %d messages, %v", n, err)
	}
}

package openclawstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// schema is OpenClaw's transcript_events table (2026.9), without its CHECK constraints.
const schema = `CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq)
) STRICT`

// newStore creates a store in journal mode mode and returns its path and a writable handle.
func newStore(t *testing.T, mode string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode("+mode+")")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	if _, err := w.Exec(schema); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := w.QueryRow(`PRAGMA journal_mode`).Scan(&got); err != nil || !strings.EqualFold(got, mode) {
		t.Fatalf("journal_mode = %q, %v; want %s", got, err, mode)
	}
	return path, w
}

func insertEvent(t testing.TB, w *sql.DB, session string, seq int, line string) {
	t.Helper()
	if _, err := w.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)`,
		session, seq, line, seq); err != nil {
		t.Fatal(err)
	}
}

func piLines(session string, n int) []string {
	lines := []string{fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T00:00:00.000Z","cwd":"/w"}`, session)}
	parent := "null"
	for i := 1; i < n; i++ {
		role := "user"
		if i%2 == 0 {
			role = "assistant"
		}
		id := fmt.Sprintf("e%07d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-09-01T00:00:01.000Z","message":{"role":%q,"content":[{"type":"text","text":"message %d %s"}]}}`,
			id, parent, role, i, strings.Repeat("x", 200)))
		parent = fmt.Sprintf("%q", id)
	}
	return lines
}

func exportString(t *testing.T, path, session string) (string, error) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var b bytes.Buffer
	_, err = s.Export(context.Background(), session, &b)
	return b.String(), err
}

func TestExportSessions(t *testing.T) {
	path, w := newStore(t, "wal")
	a, b := piLines("sa", 600), piLines("sb", 3)
	for i, l := range a {
		insertEvent(t, w, "sa", i, l)
	}
	for i, l := range b {
		insertEvent(t, w, "sb", i+1000, l)
	}
	// One event stored as OpenClaw stores a large one: zstd, with its size.
	big := fmt.Sprintf(`{"type":"message","id":"z1","parentId":"e0000002","message":{"role":"user","content":%q}}`, strings.Repeat("zstd ", 400))
	enc, _ := zstd.NewWriter(nil)
	if _, err := w.Exec(`INSERT INTO transcript_events (session_id, seq, event_zstd, event_utf8_bytes, navigation_json, created_at) VALUES ('sb', 2000, ?, ?, '{}', 2000)`,
		enc.EncodeAll([]byte(big), nil), len(big)); err != nil {
		t.Fatal(err)
	}
	b = append(b, big)
	names, err := Sessions.ListSessions(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{path + "#sa", path + "#sb"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("sessions = %v, want %v", names, want)
	}
	for _, tc := range []struct {
		id    string
		lines []string
	}{{"sa", a}, {"sb", b}} {
		got, err := exportString(t, path, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(tc.lines, "\n") + "\n"; got != want {
			t.Errorf("%s: export differs from the events (%d bytes, want %d)", tc.id, len(got), len(want))
		}
	}
	if _, err := exportString(t, path, "nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing session: %v, want ErrNotExist", err)
	}
}

func TestExportBadEvent(t *testing.T) {
	path, w := newStore(t, "delete")
	insertEvent(t, w, "s1", 0, `{"type":"session","version":3,"id":"s1"}`)
	insertEvent(t, w, "s1", 1, `{"type":"message",`)
	_, err := exportString(t, path, "s1")
	var ee *EventError
	if !errors.As(err, &ee) || ee.Seq != 1 || ee.RowID != 2 || ee.Session != "s1" {
		t.Fatalf("err = %v, want an EventError at seq 1, rowid 2", err)
	}
	if msg := err.Error(); !strings.Contains(msg, path+"#s1") || !strings.Contains(msg, "seq 1 (rowid 2)") {
		t.Errorf("error %q does not name the store, session and row", msg)
	}
}

func TestOpenNotAStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "other.sqlite")
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "not an OpenClaw session store") {
		t.Errorf("Open = %v", err)
	}
	text := filepath.Join(dir, "x.sqlite")
	os.WriteFile(text, []byte("hello"), 0o600)
	if Sessions.IsStoreFile(text) || IsSessionName(text+"#s") {
		t.Error("a text file named .sqlite is taken for a store")
	}
}

func TestSplitName(t *testing.T) {
	path, _ := newStore(t, "delete")
	hashFile := filepath.Join(t.TempDir(), "a#b.jsonl")
	os.WriteFile(hashFile, nil, 0o600)
	for _, tc := range []struct {
		name      string
		store, id string
		ok        bool
	}{
		{path + "#abc", path, "abc", true},
		{path + "#a#b", path + "#a", "", false}, // the store is the part before the last #
		{path + "#", "", "", false},
		{path, "", "", false},
		{hashFile, "", "", false},
		{"/no/such.sqlite#x", "", "", false},
	} {
		store, id, ok := Sessions.SplitName(tc.name)
		if ok != tc.ok || (ok && (store != tc.store || id != tc.id)) {
			t.Errorf("Sessions.SplitName(%q) = %q, %q, %v", tc.name, store, id, ok)
		}
	}
}

// TestExportLargeEvents: a session whose events pass batchBytes is read over several batches,
// whole and in order.
func TestExportLargeEvents(t *testing.T) {
	path, w := newStore(t, "wal")
	var want strings.Builder
	for i := range 5 {
		line := fmt.Sprintf(`{"type":"message","id":"m%d","message":{"role":"user","content":%q}}`, i, strings.Repeat(string(rune('a'+i)), 3<<20))
		insertEvent(t, w, "s", i, line)
		want.WriteString(line + "\n")
	}
	got, err := exportString(t, path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Errorf("export of 15 MB of events differs (%d bytes, want %d)", len(got), want.Len())
	}
}

// TestStatSessionIsTheExport: a session's stated size is the size of its export, for every
// session of a store (one with a zstd event, one with an event that is not JSON, one that is
// not there), and a change to the store is seen by the next stat, in WAL and rollback-journal
// modes alike.
func TestStatSessionIsTheExport(t *testing.T) {
	for _, mode := range []string{"wal", "delete"} {
		path, w := newStore(t, mode)
		for i, l := range piLines("sa", 40) {
			insertEvent(t, w, "sa", i, l)
		}
		big := fmt.Sprintf(`{"type":"message","id":"z1","parentId":null,"message":{"role":"user","content":%q}}`, strings.Repeat("zstd ", 400))
		enc, _ := zstd.NewWriter(nil)
		if _, err := w.Exec(`INSERT INTO transcript_events (session_id, seq, event_zstd, event_utf8_bytes, created_at) VALUES ('sb', 1, ?, ?, 1)`,
			enc.EncodeAll([]byte(big), nil), len(big)); err != nil {
			t.Fatal(err)
		}
		insertEvent(t, w, "sc", 0, `{"type":"message",`)
		same := func(when string) {
			t.Helper()
			for _, id := range []string{"sa", "sb"} {
				info, err := Sessions.StatSession(path + Sep + id)
				got, xerr := exportString(t, path, id)
				if err != nil || xerr != nil || info.Size() != int64(len(got)) {
					t.Errorf("%s %s %s: stated %v %v, exported %d bytes %v", mode, when, id, info, err, len(got), xerr)
				}
			}
			var ee *EventError
			if _, err := Sessions.StatSession(path + Sep + "sc"); !errors.As(err, &ee) {
				t.Errorf("%s %s: a session with a bad event stated: %v", mode, when, err)
			}
			if _, err := Sessions.StatSession(path + Sep + "nope"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s %s: a missing session: %v, want ErrNotExist", mode, when, err)
			}
		}
		same("first")
		insertEvent(t, w, "sa", 100, piLines("sa", 3)[2])
		same("after an event was added")
	}
}

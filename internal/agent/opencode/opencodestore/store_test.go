package opencodestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// schema is the part of opencode's store (opencode 1.18.33) that ctxc reads.
const schema = `
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, slug text NOT NULL, directory text NOT NULL,
	title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
	time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
	time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);`

// newStore makes an opencode store in WAL mode, as opencode runs it.
func newStore(t *testing.T) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	if _, err := w.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return path, w
}

// insertMessage stores a message with one text part, as opencode stores them: the data without
// the ids, which are columns.
func insertMessage(t testing.TB, w *sql.DB, session, id string, created int64, role, text string) {
	t.Helper()
	if _, err := w.Exec(`INSERT INTO message VALUES (?, ?, ?, ?, ?)`, id, session, created, created,
		fmt.Sprintf(`{"role":%q,"time":{"created":%d}}`, role, created)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)`, "prt_"+id, id, session, created, created,
		fmt.Sprintf(`{"type":"text","text":%q}`, text)); err != nil {
		t.Fatal(err)
	}
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

// TestExportOrderAndIDs: messages in opencode's order (time created, then id) across batches,
// each with its ids put back and its parts.
func TestExportOrderAndIDs(t *testing.T) {
	path, w := newStore(t)
	n := batchRows + 10
	for i := n - 1; i >= 0; i-- { // inserted newest first: the order is the store's, not the rows'
		insertMessage(t, w, "ses_a", fmt.Sprintf("msg_%04d", i), int64(i/2), "user", fmt.Sprint("text ", i))
	}
	insertMessage(t, w, "ses_b", "msg_other", 0, "user", "other session")
	got, err := exportString(t, path, "ses_a")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	want0 := `{"info":{"role":"user","time":{"created":0},"id":"msg_0000","sessionID":"ses_a"},"parts":[{"type":"text","text":"text 0","id":"prt_msg_0000","sessionID":"ses_a","messageID":"msg_0000"}]}`
	if lines[0] != want0 {
		t.Errorf("first line\n got %s\nwant %s", lines[0], want0)
	}
	for i, l := range lines {
		if !strings.Contains(l, fmt.Sprintf(`"id":"msg_%04d"`, i)) {
			t.Fatalf("line %d is not msg_%04d: %s", i, i, l)
		}
	}
	names, err := ListSessions(path)
	if err != nil || len(names) != 2 || names[0] != path+"#ses_a" {
		t.Errorf("sessions %v, %v", names, err)
	}
}

// TestExportBadRow: a row whose data is not a JSON object is an error naming the store, the
// session, the table and the row's id.
func TestExportBadRow(t *testing.T) {
	path, w := newStore(t)
	insertMessage(t, w, "ses_a", "msg_1", 1, "user", "fine")
	if _, err := w.Exec(`UPDATE part SET data = '{"type":"text",' WHERE id = 'prt_msg_1'`); err != nil {
		t.Fatal(err)
	}
	_, err := exportString(t, path, "ses_a")
	var re *RowError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), path+"#ses_a: part prt_msg_1") {
		t.Errorf("error %v; want a RowError naming %s#ses_a, part prt_msg_1", err, path)
	}
}

// TestReadDuringWriteTransaction: opencode holds a write transaction with a message not yet
// committed; ctxc reads at once, sees only what was committed, and the commit goes through.
func TestReadDuringWriteTransaction(t *testing.T) {
	path, w := newStore(t)
	insertMessage(t, w, "ses_a", "msg_1", 1, "user", "committed")
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO message VALUES ('msg_2', 'ses_a', 2, 2, '{"role":"user"}')`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := exportString(t, path, "ses_a")
	if err != nil {
		t.Fatalf("read while opencode holds its transaction: %v", err)
	}
	if n := strings.Count(got, "\n"); n != 1 || strings.Contains(got, "msg_2") {
		t.Errorf("read %d messages (%s), want the one committed", n, got)
	}
	if d := time.Since(start); d > BusyTimeout/2 {
		t.Errorf("read waited %v on the writer's open transaction", d)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatalf("commit after the read: %v", err)
	}
	if got, _ := exportString(t, path, "ses_a"); strings.Count(got, "\n") != 2 {
		t.Errorf("after the commit: %s", got)
	}
}

// TestSessionNames: STORE#ID names a session only when STORE is a store file named as
// opencode names it.
func TestSessionNames(t *testing.T) {
	path, w := newStore(t)
	insertMessage(t, w, "ses_a", "msg_1", 1, "user", "x")
	for name, want := range map[string]bool{
		path + "#ses_a": true, path + "#": false, path: false,
		filepath.Join(filepath.Dir(path), "other.db") + "#ses_a": false,
	} {
		if got := IsSessionName(name); got != want {
			t.Errorf("IsSessionName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestKiloStore: Kilo's store (opencode's schema, kilo.db) is read as opencode's, each line
// naming its agent; the names of either agent's stores are its own.
func TestKiloStore(t *testing.T) {
	path, w := newStore(t)
	insertMessage(t, w, "ses_a", "msg_1", 1, "user", "hi")
	for _, tc := range []struct {
		a     *Agent
		start string
	}{
		{Opencode, `{"info":{"role":"user"`},
		{Kilo, `{"agent":"kilo","info":{"role":"user"`},
	} {
		s, err := tc.a.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, err = s.Export(context.Background(), "ses_a", &b)
		s.Close()
		if err != nil || !strings.HasPrefix(b.String(), tc.start) {
			t.Errorf("%s: export %q (%v), want it to start %s", tc.a.Name, b.String(), err, tc.start)
		}
	}
	for _, tc := range []struct {
		path           string
		opencode, kilo bool
	}{
		{"/d/opencode/opencode.db", true, false},
		{"/d/opencode/opencode-beta.db", true, false},
		{"/d/kilo/kilo.db", false, true},
		{"/d/kilo/kilo-dev.db", false, true},
		{"/d/kilo/kilo.sqlite", false, false},
	} {
		if Opencode.NamedAsStore(tc.path) != tc.opencode || Kilo.NamedAsStore(tc.path) != tc.kilo {
			t.Errorf("%s: named as opencode's %v, Kilo's %v", tc.path, Opencode.NamedAsStore(tc.path), Kilo.NamedAsStore(tc.path))
		}
	}
	t.Setenv("XDG_DATA_HOME", "/x")
	if got := Kilo.DefaultPath(); got != "/x/kilo/kilo.db" {
		t.Errorf("Kilo's default path %s", got)
	}
}

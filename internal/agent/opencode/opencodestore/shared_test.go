package opencodestore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/storefiles"
)

// manySessions fills a store with sessions of every shape the export meets: many small ones,
// one longer than a batch, messages of one time ordered by id, a message without parts, a part
// whose message is missing, text that is not UTF-8, a session row without messages, and a
// session whose row is not JSON.
func manySessions(t *testing.T, w *sql.DB) {
	t.Helper()
	for s := range 40 {
		session := fmt.Sprintf("ses_%03d", 40-s) // (ids against the order the sessions began)
		n := 1 + s%7
		if s == 13 {
			n = batchRows + 3
		}
		for m := range n {
			insertMessage(t, w, session, fmt.Sprintf("msg_%03d_%04d", s, n-m), int64(1000*s+m/2), "user",
				fmt.Sprintf("text %d of %s", m, session))
		}
	}
	exec := func(q string, args ...any) {
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO message VALUES ('msg_noparts', 'ses_001', 5, 5, '{"role":"assistant"}')`)
	exec(`INSERT INTO part VALUES ('prt_orphan', 'msg_gone', 'ses_001', 5, 5, '{"type":"text","text":"no message"}')`)
	exec(`INSERT INTO message VALUES ('msg_bytes', 'ses_001', 6, 6, '{"role":"user"}')`)
	exec(`INSERT INTO part VALUES (?, 'msg_bytes', 'ses_001', 6, 6, ?)`, "prt_bytes", "{\"type\":\"text\",\"text\":\"\xff\xfe caf\xc3\"}")
	exec(`INSERT INTO session VALUES ('ses_empty', 'p', 's', '/d', 't', '1', 1, 1)`)
	insertMessage(t, w, "ses_bad", "msg_bad", 7, "user", "fine")
	exec(`UPDATE message SET data = 'not json' WHERE id = 'msg_bad'`)
}

// perSession is a session as exported on its own, from a store opened for it alone.
func perSession(t *testing.T, a *Agent, store, session string) (string, error) {
	t.Helper()
	s, err := a.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var b bytes.Buffer
	_, err = s.Export(context.Background(), session, &b)
	return b.String(), err
}

// TestSessionsOfAStoreReadWithOneOpen: every session a store lists, each opened as its readers
// open it (storefiles), reads exactly as that session exported on its own, and the store is
// opened once for them all.
func TestSessionsOfAStoreReadWithOneOpen(t *testing.T) {
	path, w := newStore(t)
	manySessions(t, w)
	for _, proto := range []*Agent{Opencode, Kilo} {
		a := newAgent(proto.Name, proto.Dir, FileName, proto.line, proto.hint)
		opens := 0
		open := a.files.Open
		a.files.Open = func(p string) (storefiles.Store, error) { opens++; return open(p) }
		names, err := a.ListSessions(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(names) != 41 {
			t.Fatalf("%s: %d sessions listed, want 41", a.Name, len(names))
		}
		for _, name := range names {
			_, session, _ := a.SplitName(name)
			want, werr := perSession(t, a, path, session)
			f, _, err := a.OpenSession(name)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(f)
				f.Close()
			}
			if fmt.Sprint(err) != fmt.Sprint(werr) || string(got) != want {
				t.Fatalf("%s: read\n%q (%v)\nexported on its own\n%q (%v)", name, got, err, want, werr)
			}
		}
		if opens != 1 {
			t.Errorf("%s: the store opened %d times for its %d sessions, want once", a.Name, opens, len(names))
		}
	}
}

// TestSharedStoreNeverHoldsUpTheWriter: the store, kept open between the exports of its
// sessions, holds no read transaction: opencode commits and checkpoints its WAL whole (which
// waits for every reader) while ctxc has it open, and the next read sees the commit.
func TestSharedStoreNeverHoldsUpTheWriter(t *testing.T) {
	path, w := newStore(t)
	insertMessage(t, w, "ses_a", "msg_1", 1, "user", "first")
	read := func() string {
		f, _, err := Opencode.OpenSession(path + Sep + "ses_a")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return string(b)
	}
	if got := read(); !strings.Contains(got, "first") {
		t.Fatalf("read %q", got)
	}
	insertMessage(t, w, "ses_a", "msg_2", 2, "user", "second")
	var busy, logged, done int
	if err := w.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil || busy != 0 {
		t.Fatalf("opencode's checkpoint while ctxc has the store open: busy %d (%v)", busy, err)
	}
	if got := read(); !strings.Contains(got, "second") {
		t.Errorf("after the commit: %q", got)
	}
}

// TestSessionsReadAtOnce: readers reading sessions of one open store at once (stats' jobs) each
// read their session whole and alone.
func TestSessionsReadAtOnce(t *testing.T) {
	path, w := newStore(t)
	manySessions(t, w)
	names, err := Kilo.ListSessions(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, name := range names {
		_, session, _ := Kilo.SplitName(name)
		want[name], _ = perSession(t, Kilo, path, session)
	}
	errs := make(chan error, 4)
	for r := range 4 {
		go func() {
			for i := range names {
				name := names[(i+r*7)%len(names)]
				f, _, err := Kilo.OpenSession(name)
				var got []byte
				if err == nil {
					got, err = io.ReadAll(f)
					f.Close()
				}
				if err == nil && string(got) != want[name] {
					err = fmt.Errorf("%s: read %q, want %q", name, got, want[name])
				}
				if err != nil && want[name] != "" {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

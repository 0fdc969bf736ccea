package cmd

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
)

// opencodeDataHome is an XDG data folder with an opencode store holding the messages of
// fixture (one exported message a line) as session ses_a, stored as opencode stores them: the
// ids in columns, the rest in "data".
func opencodeDataHome(t *testing.T, fixture string) (data, store string) {
	return agentDataHome(t, opencodestore.Opencode, fixture)
}

// agentDataHome is an XDG data folder with a store of agent a (opencode's schema) holding the
// messages of fixture as session ses_a.
func agentDataHome(t *testing.T, a *opencodestore.Agent, fixture string) (data, store string) {
	t.Helper()
	data = t.TempDir()
	store = filepath.Join(data, a.Dir, a.FileName)
	os.MkdirAll(filepath.Dir(store), 0o700)
	db, err := sql.Open("sqlite", "file:"+store+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE session (id text PRIMARY KEY, directory text NOT NULL, title text NOT NULL, time_created integer NOT NULL)`,
		`CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
		`CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Info  map[string]any
			Parts []map[string]any
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		id := m.Info["id"].(string)
		delete(m.Info, "id")
		delete(m.Info, "sessionID")
		info, _ := json.Marshal(m.Info)
		if _, err := db.Exec(`INSERT INTO message VALUES (?, 'ses_a', ?, ?, ?)`, id, n, n, string(info)); err != nil {
			t.Fatal(err)
		}
		for k, p := range m.Parts {
			pid, _ := p["id"].(string)
			if pid == "" {
				pid = id + "_" + string(rune('a'+k))
			}
			for _, key := range []string{"id", "sessionID", "messageID"} {
				delete(p, key)
			}
			data, _ := json.Marshal(p)
			if _, err := db.Exec(`INSERT INTO part VALUES (?, ?, 'ses_a', ?, ?, ?)`, pid, id, n, n, string(data)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return data, store
}

// TestOpencodeStoreCommands: a session of opencode's store, STORE#SESSION-ID, read by the
// commands as the exported file reads; found in a folder and as search's default root; compact
// never writes into the store; handoff takes it as its source.
func TestOpencodeStoreCommands(t *testing.T) {
	fixture := "../testdata/fixtures/opencode-compacted-tail.jsonl"
	data, store := opencodeDataHome(t, fixture)
	name := store + "#ses_a"
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}

	code, fromStore, errOut := runCLI(t, t.TempDir(), "load", "-q", name)
	_, fromFile, _ := runCLI(t, t.TempDir(), "load", "-q", fixture)
	if code != 0 || fromStore != fromFile || fromStore == "" {
		t.Errorf("load of the store's session (exit %d, %s):\n%s\nload of the file:\n%s", code, errOut, fromStore, fromFile)
	}
	if st := statsOf(t, data); st.Format != "opencode" || st.Compactions != 1 || st.EffMessages != 6 {
		t.Errorf("stats of the data folder: %+v", st)
	}
	if code, out, _ := runCLI(t, t.TempDir(), "grep", "What did we do", data); code != 0 || !strings.Contains(out, name+":6: user: What did we do so far?") {
		t.Errorf("grep (exit %d): %s", code, out)
	}

	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", data)
	code, out, errOut := runCLI(t, t.TempDir(), "search", "--db", filepath.Join(t.TempDir(), "idx"), "second")
	if code != 0 || !strings.Contains(out, name) || !strings.Contains(out, "opencode --session ses_a") {
		t.Errorf("search with no PATH (exit %d, %s): %s", code, errOut, out)
	}

	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1", name)
	if code != 2 || !strings.Contains(errOut, "opencode's SQLite store, which ctxc only reads") {
		t.Errorf("compact in place: exit %d: %s", code, errOut)
	}
	out2 := filepath.Join(t.TempDir(), "handoff.jsonl")
	if code, _, errOut := runCLI(t, t.TempDir(), "handoff", "--to", "pi", "-o", out2, name); code != 0 {
		t.Errorf("handoff: exit %d: %s", code, errOut)
	} else if st := statsOf(t, out2); st.Format != "pi" || st.EffMessages != 6 {
		t.Errorf("stats of the handoff: %+v", st)
	}
	// The store is as it was; a WAL store's reader needs its -shm index and an empty -wal,
	// which SQLite creates when the last writer removed them (opencode, running, has both).
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Error("the store changed")
	}
	if wal, err := os.ReadFile(store + "-wal"); err == nil && len(wal) != 0 {
		t.Errorf("the store's -wal holds %d bytes", len(wal))
	}
}

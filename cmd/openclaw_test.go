package cmd

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/tidwall/gjson"
)

// openclawHome is an OpenClaw home with one agent's store holding the given sessions (id →
// pi-format JSONL, one event a line), in OpenClaw's table layout, in rollback-journal mode.
func openclawHome(t *testing.T, sessions map[string]string) (home, store string) {
	t.Helper()
	home = t.TempDir()
	store = filepath.Join(home, "agents", "main", "agent", openclawstore.FileName)
	os.MkdirAll(filepath.Dir(store), 0o700)
	db, err := sql.Open("sqlite", "file:"+store+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
		event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER,
		navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT`); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for n, id := range ids {
		for seq, line := range strings.Split(strings.TrimSpace(sessions[id]), "\n") {
			if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)`,
				id, seq, line, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	return home, store
}

// dirDigest is a directory's file names and contents, to see that nothing was written there.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var b strings.Builder
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s:%x ", e.Name(), sha256.Sum256(data))
	}
	return b.String()
}

func TestOpenClawStoreCommands(t *testing.T) {
	fixture, err := os.ReadFile("../testdata/fixtures/pi-openclaw-branched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	home, store := openclawHome(t, map[string]string{
		"s1": string(fixture),
		"s2": `{"type":"session","version":3,"id":"s2","timestamp":"2026-09-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"m1","parentId":null,"timestamp":"2026-09-01T00:00:01.000Z","message":{"role":"user","content":"where is the migration plan?"}}`,
	})
	before := dirDigest(t, filepath.Dir(store))
	idx := filepath.Join(t.TempDir(), "index")
	src := filepath.Join(t.TempDir(), "s1.jsonl")
	os.WriteFile(src, fixture, 0o600)

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // each in stdout
		err  string   // in stderr
	}{
		{"stats over the home names each session", []string{"stats", "--json", home}, 0,
			[]string{`"path":"` + store + `#s1"`, `"path":"` + store + `#s2"`, `"files":2`}, ""},
		{"stats of the store", []string{"stats", store}, 0, []string{store + "#s1", store + "#s2"}, ""},
		{"grep finds the session", []string{"grep", "migration plan", home}, 0, []string{store + "#s2:2: user: where is the migration plan?"}, ""},
		{"load of one session", []string{"load", "-q", store + "#s2"}, 0, []string{`{"role":"user","content":"where is the migration plan?"}`}, ""},
		{"lint reads a session", []string{"lint", store + "#s1"}, 0, nil, ""},
		{"a session that is not there", []string{"load", store + "#nope"}, 1, nil, "no such session"},
		{"compact in place is refused", []string{"compact", "--provider", "extractive", store + "#s1"}, cmdutil.ExitUsage, nil, "which ctxc only reads"},
		{"repair in place is refused", []string{"repair", store + "#s1"}, cmdutil.ExitUsage, nil, "which ctxc only reads"},
		{"compact --check reads", []string{"compact", "--check", store}, 0, nil, ""},
		{"search indexes the store's sessions", []string{"search", "--db", idx, "--json", "migration plan", home}, 0,
			[]string{`"path":"` + store + `#s2","line":2,"session":"s2","agent":"pi","project":"/w"`}, ""},
		{"grep --index reads the sessions that can hold it", []string{"grep", "--index", "--db", idx, "migration plan", home}, 0,
			[]string{store + "#s2:2: user: where is the migration plan?"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, t.TempDir(), tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.err) {
				t.Fatalf("exit %d, want %d; stderr %q (want %q)", code, tc.code, errOut, tc.err)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
	t.Run("load agrees with the pi file", func(t *testing.T) {
		_, fromStore, _ := runCLI(t, t.TempDir(), "load", "-q", store+"#s1")
		_, fromFile, _ := runCLI(t, t.TempDir(), "load", "-q", src)
		if fromStore == "" || fromStore != fromFile {
			t.Errorf("load of the store's session:\n%s\nload of the file:\n%s", fromStore, fromFile)
		}
	})
	t.Run("stats agrees with the pi file", func(t *testing.T) {
		_, a, _ := runCLI(t, t.TempDir(), "stats", "--json", store+"#s1")
		_, b, _ := runCLI(t, t.TempDir(), "stats", "--json", src)
		for _, f := range []string{"lines", "tokens", "effective_tokens", "bytes", "messages"} {
			if x, y := gjson.Get(a, f).Raw, gjson.Get(b, f).Raw; x != y {
				t.Errorf("%s: %s from the store, %s from the file", f, x, y)
			}
		}
	})
	if after := dirDigest(t, filepath.Dir(store)); after != before {
		t.Errorf("the store's folder changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestOpenClawStoreBadEvent(t *testing.T) {
	_, store := openclawHome(t, map[string]string{
		"s1": `{"type":"session","version":3,"id":"s1"}` + "\n" + `{"type":"message","message":`,
	})
	code, _, errOut := runCLI(t, t.TempDir(), "stats", store)
	if code == 0 || !strings.Contains(errOut, store+"#s1: event seq 1 (rowid 2)") {
		t.Errorf("exit %d, stderr %q: want an error naming the store, session, seq and row", code, errOut)
	}
}

package cmd

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/openclawstore"
	"github.com/tidwall/gjson"
)

// The real OpenClaw (scripts/agent-packages.txt) builds its SQLite session store itself, by
// its own migration of pi-format JSONL sessions (`openclaw doctor --session-sqlite import`):
// ctxc reads every session of the store as OpenClaw stored it, and OpenClaw imports what
// `ctxc compact -o` writes from a session of its store.

// openclawBin is the real openclaw command, with the Node.js it needs first on PATH.
func openclawBin(t *testing.T) (bin string, env []string) {
	t.Helper()
	dir := os.Getenv("CTXC_MORE_AGENTS_BIN")
	bin = filepath.Join(dir, "openclaw")
	if _, err := os.Stat(bin); dir == "" || err != nil {
		t.Skip("openclaw not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	return bin, []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// legacySession places a pi-format session where OpenClaw before 2026.8 kept it:
// agents/<agent>/sessions/<id>.jsonl, listed in that folder's sessions.json under key.
func legacySession(t *testing.T, home, agent, key string, session []byte) string {
	t.Helper()
	id := gjson.GetBytes(session[:strings.IndexByte(string(session), '\n')], "id").Str
	dir := filepath.Join(home, "agents", agent, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), session, 0o600); err != nil {
		t.Fatal(err)
	}
	index := map[string]any{}
	if b, err := os.ReadFile(filepath.Join(dir, "sessions.json")); err == nil {
		json.Unmarshal(b, &index)
	}
	index[key] = map[string]any{"sessionId": id, "updatedAt": 1775106000010}
	b, _ := json.Marshal(index)
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}

// openclawImport runs OpenClaw's own migration of the legacy sessions into its stores.
func openclawImport(t *testing.T, bin string, env []string, home string) {
	t.Helper()
	cmd := exec.Command(bin, "doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--non-interactive")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), append(env, "OPENCLAW_STATE_DIR="+home, "HOME="+filepath.Join(home, "user"), "NO_COLOR=1")...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 issue(s)") {
		t.Fatalf("openclaw doctor --session-sqlite import: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// storeCounts reads a store directly: the events of each session, and how many OpenClaw
// stored compressed.
func storeCounts(t *testing.T, store string) (events map[string]int, compressed int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT session_id, count(*), sum(event_zstd IS NOT NULL) FROM transcript_events GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	events = map[string]int{}
	for rows.Next() {
		var id string
		var n, z int
		if err := rows.Scan(&id, &n, &z); err != nil {
			t.Fatal(err)
		}
		events[id] = n
		compressed += z
	}
	return events, compressed
}

// bigSession is a pi session with messages long enough for OpenClaw to store them compressed.
func bigSession() []byte {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/w"}` + "\n")
	parent := "null"
	for i := 1; i <= 12; i++ {
		role := map[bool]string{true: "user", false: "assistant"}[i%2 == 1]
		text := strings.Repeat(fmt.Sprintf("line %d of a long %s message about the build. ", i, role), 60)
		fmt.Fprintf(&b, `{"type":"message","id":"m%07d","parentId":%s,"timestamp":"2026-09-01T10:00:%02d.000Z","message":{"role":%q,"content":[{"type":"text","text":%q}]}}`+"\n",
			i, parent, i, role, text)
		parent = fmt.Sprintf(`"m%07d"`, i)
	}
	return []byte(b.String())
}

func TestAgentOpenClawStore(t *testing.T) {
	bin, env := openclawBin(t)
	home := t.TempDir()
	sources := map[string][]byte{}
	for _, f := range []string{"pi-long-tools.jsonl", "pi-v1-two-compactions.jsonl", "pi-openclaw-branched.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../testdata/fixtures", f))
		if err != nil {
			t.Fatal(err)
		}
		sources[legacySession(t, home, "main", "agent:main:"+f, b)] = b
	}
	sources[legacySession(t, home, "work", "agent:work:main", bigSession())] = bigSession()
	openclawImport(t, bin, env, home)

	want := map[string]int{}
	compressed := 0
	for _, agent := range []string{"main", "work"} {
		store := filepath.Join(home, "agents", agent, "agent", openclawstore.FileName)
		events, z := storeCounts(t, store)
		compressed += z
		for id, n := range events {
			want[store+openclawstore.Sep+id] = n
		}
	}
	if len(want) != len(sources) {
		t.Fatalf("OpenClaw's stores hold %d sessions, want %d: %v", len(want), len(sources), want)
	}
	t.Logf("%d events stored compressed", compressed)

	t.Run("stats over the home", func(t *testing.T) {
		code, out, errOut := runCLI(t, t.TempDir(), "stats", "--json", home)
		if code != 0 {
			t.Fatalf("ctxc stats: exit %d: %s", code, errOut)
		}
		got := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if r := gjson.Parse(l); r.Get("type").Str == "file" {
				got[r.Get("path").Str] = int(r.Get("lines").Int())
				if f := r.Get("format").Str; f != "pi" {
					t.Errorf("%s: format %q, want pi", r.Get("path").Str, f)
				}
			}
		}
		if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
			t.Errorf("ctxc stats sessions/lines:\n got %v\nwant %v (from the store)", got, want)
		}
	})

	t.Run("load agrees with the source", func(t *testing.T) {
		for name := range want {
			id := name[strings.LastIndex(name, openclawstore.Sep)+1:]
			src := filepath.Join(t.TempDir(), "src.jsonl")
			os.WriteFile(src, sources[id], 0o600)
			_, fromStore, e1 := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", name)
			_, fromFile, e2 := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", src)
			if fromStore == "" || fromStore != fromFile {
				t.Errorf("%s: ctxc load of the store's session differs from the JSONL OpenClaw imported (%s%s)", name, e1, e2)
			}
		}
	})

	t.Run("compact -o is imported by OpenClaw", func(t *testing.T) {
		compactImportedBack(t, bin, env, home, want)
	})
}

// compactImportedBack compacts the largest session of the store with -o (the store is left as
// it was), places the output where OpenClaw's migration reads legacy sessions, and checks that
// OpenClaw imports it whole: the new store holds one event per line and ctxc loads the same
// context from either.
func compactImportedBack(t *testing.T, bin string, env []string, home string, sessions map[string]int) {
	name := ""
	for n, c := range sessions {
		if name == "" || c > sessions[name] {
			name = n
		}
	}
	out := filepath.Join(t.TempDir(), "compacted.jsonl")
	if code, _, errOut := runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1000", "--keep-tail", "4", name); code != ExitUsage || !strings.Contains(errOut, "only reads") {
		t.Errorf("compact in place: exit %d, %s; want the read-only refusal (exit %d)", code, errOut, ExitUsage)
	}
	code, stdout, errOut := runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1000", "--keep-tail", "4", "-o", out, name)
	if code != 0 {
		t.Fatalf("ctxc compact -o: exit %d: %s%s", code, stdout, errOut)
	}
	compacted, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(compacted), `"type":"compaction"`) {
		t.Fatalf("ctxc compact -o wrote no pi compaction entry: %s", stdout)
	}
	back := t.TempDir()
	id := legacySession(t, back, "main", "agent:main:main", compacted)
	openclawImport(t, bin, env, back)
	store := filepath.Join(back, "agents", "main", "agent", openclawstore.FileName)
	events, _ := storeCounts(t, store)
	if lines := strings.Count(string(compacted), "\n"); events[id] != lines {
		t.Fatalf("OpenClaw imported %d events of the %d lines ctxc wrote", events[id], lines)
	}
	_, fromStore, _ := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", store+openclawstore.Sep+id)
	_, fromFile, _ := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", out)
	if fromStore == "" || fromStore != fromFile {
		t.Errorf("the imported compaction loads differently from ctxc's file:\n%.600s\n---\n%.600s", fromStore, fromFile)
	}
	if strings.Count(fromFile, "\n") >= strings.Count(mustLoad(t, name), "\n") {
		t.Errorf("the compacted session is not shorter than the original")
	}
}

func mustLoad(t *testing.T, name string) string {
	t.Helper()
	code, out, errOut := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", name)
	if code != 0 {
		t.Fatalf("ctxc load %s: exit %d: %s", name, code, errOut)
	}
	return out
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}

package cmd

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/cmdutil"
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
		agentcheck.Skip(t, "openclaw not installed (eval \"$(scripts/install-agents.sh)\")")
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
	// Recently updated: OpenClaw archives sessions idle for long when it runs a turn.
	index[key] = map[string]any{"sessionId": id, "updatedAt": time.Now().UnixMilli()}
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
	keys := map[string]string{} // session id → OpenClaw's session key
	for _, f := range []string{"pi-long-tools.jsonl", "pi-v1-two-compactions.jsonl", "pi-openclaw-branched.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../testdata/fixtures", f))
		if err != nil {
			t.Fatal(err)
		}
		key := "agent:main:" + strings.TrimSuffix(f, ".jsonl")
		id := legacySession(t, home, "main", key, b)
		sources[id], keys[id] = b, key
	}
	id := legacySession(t, home, "work", "agent:work:main", bigSession())
	sources[id], keys[id] = bigSession(), "agent:work:main"
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

	// Last, since OpenClaw's turns append to the sessions.
	t.Run("load agrees with what OpenClaw sends", func(t *testing.T) {
		judged := map[string]string{} // a turn of OpenClaw takes most of a minute: two sessions
		for id, key := range keys {
			if strings.Contains(key, "two-compactions") || strings.Contains(key, "branched") {
				judged[id] = key
			}
		}
		openclawJudge(t, bin, env, home, judged)
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
	if code, _, errOut := runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1000", "--keep-tail", "4", name); code != cmdutil.ExitUsage || !strings.Contains(errOut, "only reads") {
		t.Errorf("compact in place: exit %d, %s; want the read-only refusal (exit %d)", code, errOut, cmdutil.ExitUsage)
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

// fakeChat is an OpenAI-compatible chat endpoint on 127.0.0.1 that answers "OK" (streaming, as
// OpenClaw asks) and keeps every request body.
func fakeChat(t *testing.T) (url string, bodies func() [][]byte) {
	var mu sync.Mutex
	var got [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"role":"assistant","content":"OK"},"finish_reason":null}]}`,
			`{"id":"c","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return append([][]byte(nil), got...)
	}
}

// openclawJudge resumes each session of the home in the real OpenClaw (`openclaw agent --local`,
// one turn against fakeChat) and compares the conversation it sends with `ctxc load` of the
// session as it was, reduced to turns (internal/agentcheck) after taking off what OpenClaw adds
// itself (openclawEnvelope).
func openclawJudge(t *testing.T, bin string, env []string, home string, keys map[string]string) {
	url, bodies := fakeChat(t)
	config := map[string]any{
		"models": map[string]any{"providers": map[string]any{"fake": map[string]any{
			"baseUrl": url + "/v1", "api": "openai-completions", "apiKey": "x",
			"models": []any{map[string]any{"id": "fake-model", "name": "fake", "contextWindow": 4000000, "maxTokens": 1000}},
		}}},
		"agents": map[string]any{
			"defaults": map[string]any{"model": map[string]any{"primary": "fake/fake-model"}},
			"list":     []any{map[string]any{"id": "main", "default": true}, map[string]any{"id": "work"}},
		},
	}
	b, _ := json.Marshal(config)
	if err := os.WriteFile(filepath.Join(home, "openclaw.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	for id, key := range keys {
		agent := strings.Split(key, ":")[1]
		name := filepath.Join(home, "agents", agent, "agent", openclawstore.FileName) + openclawstore.Sep + id
		want, err := agentcheck.FromLoad(agentcheck.Pi, []byte(mustLoad(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		before := len(bodies())
		cmd := exec.Command(bin, "agent", "--local", "--agent", agent, "--session-key", key, "-m", agentcheck.Prompt, "--json")
		cmd.Dir = home
		cmd.Env = append(os.Environ(), append(env, "OPENCLAW_STATE_DIR="+home, "HOME="+filepath.Join(home, "user"), "NO_COLOR=1")...)
		if out, err := cmd.CombinedOutput(); err != nil || len(bodies()) == before {
			t.Fatalf("openclaw agent --session-key %s: %v\n%.3000s", key, err, out)
		}
		got, err := openclawTurns(bodies()[len(bodies())-1])
		if err != nil {
			t.Fatal(err)
		}
		if diff := agentcheck.Compare(agentcheck.Pi, normalIDs(want), normalIDs(got)); diff != "" {
			t.Errorf("%s: ctxc load and OpenClaw's request differ: %s", name, diff)
		} else {
			t.Logf("%s: OpenClaw sent the %d turns ctxc loads", key, len(want))
		}
	}
}

// openclawStamp is the time OpenClaw puts before a user message that has one.
var openclawStamp = regexp.MustCompile(`^\[[A-Z][a-z]{2} \d{4}-\d\d-\d\d \d\d:\d\d [A-Z]+\] `)

// openclawFailedTurn is the text OpenClaw sends for an assistant turn that ended in an error,
// which pi (and ctxc) leave out of the context.
const openclawFailedTurn = "[This turn failed before it completed."

// openclawTurns reduces OpenClaw's chat request to the turns of the resumed conversation:
// its system prompt, the new prompt and what follows it (its internal context) left out, and
// what it adds to the stored messages taken off (openclawEnvelope).
func openclawTurns(body []byte) ([]agentcheck.Turn, error) {
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var kept []map[string]any
	for _, m := range req.Messages {
		text, isString := m["content"].(string)
		if isString {
			text = openclawEnvelope(text)
			m["content"] = text
		}
		if blocks, ok := m["content"].([]any); ok {
			for _, b := range blocks {
				if b, ok := b.(map[string]any); ok && b["type"] == "text" {
					b["text"] = openclawEnvelope(fmt.Sprint(b["text"]))
				}
			}
		}
		switch {
		case m["role"] == "system":
			continue
		case m["role"] == "user" && text == agentcheck.Prompt:
			return agentcheck.FromRequest(agentcheck.Pi, mustJSON(map[string]any{"messages": kept}))
		case m["role"] == "assistant" && strings.HasPrefix(text, openclawFailedTurn):
			continue
		}
		kept = append(kept, m)
	}
	return nil, fmt.Errorf("OpenClaw's request has no prompt %q", agentcheck.Prompt)
}

// openclawEnvelope takes off what OpenClaw adds to a stored user message: the time before it and
// its runtime line after the first one (the first user message of the context, a compaction's
// summary included; there, a text block of its own).
func openclawEnvelope(text string) string {
	text = openclawStamp.ReplaceAllString(text, "")
	if i := strings.Index("\n"+text, "\nRuntime: agent="); i >= 0 {
		text = strings.TrimRight(text[:max(0, i-1)], "\n")
	}
	return text
}

// normalIDs keeps the letters and digits of tool-call ids: OpenClaw sends "tool_list1" as
// "toollist1" (ids as its providers accept them).
func normalIDs(turns []agentcheck.Turn) []agentcheck.Turn {
	keep := func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}
	out := make([]agentcheck.Turn, len(turns))
	for i, t := range turns {
		out[i] = agentcheck.Turn{Role: t.Role}
		for _, p := range t.Parts {
			for _, pre := range []string{"call:", "result:"} {
				if id, ok := strings.CutPrefix(p, pre); ok {
					p = pre + strings.Map(keep, id)
				}
			}
			out[i].Parts = append(out[i].Parts, p)
		}
	}
	return out
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

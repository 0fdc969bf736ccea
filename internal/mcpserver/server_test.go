package mcpserver

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session writes a compacted OpenAI session: the string "quokka-7" is only in the summarized
// middle (line 5), "needle-tail" in the kept tail.
func session(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"role":"user","content":"start the work"}` + "\n")
	filler := strings.Repeat("x ", 800)
	for i := 0; i < 20; i++ {
		extra := ""
		if i == 1 {
			extra = "quokka-7 "
		}
		if i == 19 {
			extra = "needle-tail "
		}
		b.WriteString(`{"role":"assistant","content":null,"tool_calls":[{"id":"c` + string(rune('a'+i)) + `","type":"function","function":{"name":"read","arguments":"{}"}}]}` + "\n")
		b.WriteString(`{"role":"tool","tool_call_id":"c` + string(rune('a'+i)) + `","content":"` + extra + filler + `"}` + "\n")
	}
	b.WriteString(`{"role":"assistant","content":"done"}` + "\n")
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	out, err := compact.File(context.Background(), p, compact.Options{Threshold: 2000, Target: 300, Idle: compact.DefaultIdle, Now: time.Now(), Zones: compact.ZoneOptions{KeepTail: 4}})
	if err != nil || out.Status != compact.StatusCompacted {
		t.Fatalf("compact: %+v %v", out, err)
	}
	return p
}

// connect runs the server over a pair of pipes (JSON-RPC lines, as on stdio) and returns a
// client session of the SDK's client.
func connect(t *testing.T, o Options) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go NewServer(o).Run(ctx, sr, sw)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func errText(res *mcp.CallToolResult) string {
	var s []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s = append(s, tc.Text)
		}
	}
	return strings.Join(s, " ")
}

func TestTools(t *testing.T) {
	dir := t.TempDir()
	p := session(t, dir)
	cs := connect(t, Options{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "expand,grep,search,stats" {
		t.Errorf("tools %v", names)
	}

	// grep finds the string only in the summarized span, at its line, covered by the marker.
	var g GrepOut
	call(t, cs, "grep", map[string]any{"pattern": "quokka-7", "paths": []string{dir}, "fixed": true}, &g)
	if len(g.Hits) != 1 || g.Hits[0].Line != 5 || g.Hits[0].Role != "tool" || g.Hits[0].CoveredBy == 0 || g.Truncated {
		t.Fatalf("grep: %+v", g)
	}
	var gc GrepOut
	call(t, cs, "grep", map[string]any{"pattern": "quokka-7", "paths": []string{p}, "context": true}, &gc)
	if len(gc.Hits) != 0 {
		t.Errorf("grep --context found the summarized line: %+v", gc)
	}

	// expand returns the summarized messages, the line with the string among them.
	var e ExpandOut
	call(t, cs, "expand", map[string]any{"path": p}, &e)
	found := false
	for _, m := range e.Messages {
		if m.Line == 5 && strings.Contains(m.Text, "quokka-7") {
			found = true
		}
	}
	if !found || e.Total != len(e.Messages) || e.Truncated || e.FromLine > 5 || e.ToLine < 5 {
		t.Errorf("expand: %d of %d messages, span %d-%d, truncated %v", len(e.Messages), e.Total, e.FromLine, e.ToLine, e.Truncated)
	}

	// stats
	var s StatsOut
	call(t, cs, "stats", map[string]any{"paths": []string{p}}, &s)
	var st map[string]any
	if len(s.Files) == 1 {
		st, _ = s.Files[0].(map[string]any)
	}
	if st["format"] != "ctxc" || st["markers"] != float64(1) {
		t.Errorf("stats: %s", s.Files)
	}

	// Bad arguments are tool errors, and the server goes on.
	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"grep", map[string]any{"pattern": "(", "paths": []string{p}}, "bad pattern"},
		{"grep", map[string]any{"pattern": "x", "paths": []string{filepath.Join(dir, "missing.jsonl")}}, "no such file"},
		{"grep", map[string]any{"pattern": "x"}, "paths"},
		{"grep", map[string]any{"pattern": "x", "paths": []string{p}, "roles": []string{"robot"}}, "unknown role"},
		{"search", map[string]any{"query": "x", "paths": []string{p}, "roles": []string{"robot"}}, "roles: unknown role \"robot\""},
		{"grep", map[string]any{"pattern": "x", "paths": []string{"-"}}, "no such file"},
		{"grep", map[string]any{"pattern": "x", "paths": []string{filepath.Join(dir, "*.jsonl")}}, "no such file"},
		{"grep", map[string]any{"pattern": 7, "paths": []string{p}}, "pattern"},
		{"expand", map[string]any{"path": filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{"expand", map[string]any{"path": p, "marker": 9}, "marker"},
		{"stats", map[string]any{"paths": []string{}}, "paths"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: bad.tool, Arguments: bad.args})
		if err != nil {
			t.Errorf("%s %v: protocol error %v, want a tool error", bad.tool, bad.args, err)
			continue
		}
		if !res.IsError || !strings.Contains(errText(res), bad.want) {
			t.Errorf("%s %v: IsError %v %q, want an error about %q", bad.tool, bad.args, res.IsError, errText(res), bad.want)
		}
	}
}

// TestBounded: results are cut at the limits and say so.
func TestBounded(t *testing.T) {
	dir := t.TempDir()
	p := session(t, dir)
	cs := connect(t, Options{MaxBytes: 4000})
	var g GrepOut
	call(t, cs, "grep", map[string]any{"pattern": "x", "paths": []string{p}, "max_hits": 3}, &g)
	if len(g.Hits) != 3 || !g.Truncated || !strings.Contains(g.Note, "cut") {
		t.Errorf("max_hits: %d hits, truncated %v, %q", len(g.Hits), g.Truncated, g.Note)
	}
	call(t, cs, "grep", map[string]any{"pattern": "x", "paths": []string{p}, "max_hits": 1000}, &g)
	if b, _ := json.Marshal(g); len(b) > 4000 || !g.Truncated {
		t.Errorf("byte limit: %d bytes, truncated %v", len(b), g.Truncated)
	}
	var e ExpandOut
	res := call(t, cs, "expand", map[string]any{"path": p}, &e)
	if b, _ := json.Marshal(e); len(b) > 4000+len(p) || !e.Truncated || !strings.Contains(e.Note, "offset") || len(e.Messages) == 0 {
		t.Errorf("expand: %d bytes, %d messages, truncated %v %q %v", len(b), len(e.Messages), e.Truncated, e.Note, res.IsError)
	}
	// Paging on: the next messages.
	var e2 ExpandOut
	call(t, cs, "expand", map[string]any{"path": p, "offset": len(e.Messages)}, &e2)
	if len(e2.Messages) == 0 || e2.Messages[0].Line <= e.Messages[len(e.Messages)-1].Line {
		t.Errorf("offset: %+v", e2.Messages)
	}
}

// TestGrepDecodeAll: the grep tool follows CTXC_GREP_DECODE_ALL as ctxc grep does: with every
// line decoded, a marker whose "compact" is written with an escape (the same record to the
// readers, but not to a search of its bytes) still covers the summarized line, and the hits
// are those of the marker written plainly.
func TestGrepDecodeAll(t *testing.T) {
	t.Setenv(grep.DecodeAllEnv, "1")
	dir := t.TempDir()
	p := session(t, dir)
	cs := connect(t, Options{})
	var want GrepOut
	call(t, cs, "grep", map[string]any{"pattern": "quokka-7|needle-tail", "paths": []string{p}}, &want)
	if len(want.Hits) != 2 || want.Hits[0].CoveredBy == 0 {
		t.Fatalf("plain marker: %+v", want)
	}
	b, _ := os.ReadFile(p)
	escaped := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(escaped, []byte(strings.ReplaceAll(string(b), `{"compact"`, `{"\u0063ompact"`)), 0o644)
	var got GrepOut
	call(t, cs, "grep", map[string]any{"pattern": "quokka-7|needle-tail", "paths": []string{escaped}}, &got)
	for i := range got.Hits {
		got.Hits[i].Path = p
	}
	if g, w := mustJSON(got), mustJSON(want); g != w {
		t.Errorf("marker written with an escape:\n%s\nwant\n%s", g, w)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSearchTool: the search tool indexes the paths it is given (in the index folder of the
// options) and ranks their messages; bad arguments are tool errors.
func TestSearchTool(t *testing.T) {
	dir := t.TempDir()
	session(t, dir)
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "o.jsonl"), []byte(`{"role":"user","content":"fix the websocket reconnect"}`+"\n"), 0o644)
	cs := connect(t, Options{IndexDir: filepath.Join(t.TempDir(), "index")})
	var out SearchOut
	call(t, cs, "search", map[string]any{"query": "websocket reconnect", "paths": []string{other}}, &out)
	if len(out.Results) != 1 || out.Results[0].Line != 1 || out.Results[0].Role != "user" || !strings.Contains(out.Results[0].Snippet, "websocket") {
		t.Fatalf("search: %+v", out)
	}
	// Only the paths given are searched, though the index holds both folders now.
	call(t, cs, "search", map[string]any{"query": "websocket", "paths": []string{dir}}, &out)
	if len(out.Results) != 0 {
		t.Errorf("results outside the paths: %+v", out.Results)
	}
	for _, bad := range []map[string]any{{"query": "", "paths": []string{dir}}, {"query": "x", "paths": []string{dir}, "limit": 1000},
		{"query": "x", "paths": []string{dir}, "since": "yesterday"}} {
		if res := call(t, cs, "search", bad, nil); !res.IsError {
			t.Errorf("%v: not an error", bad)
		}
	}
}

// TestToolsReadArchives: grep, expand and stats give of an archived session (zstd, as `ctxc
// archive` writes it), found in a folder or named, what they give of the plain file.
func TestToolsReadArchives(t *testing.T) {
	dir := t.TempDir()
	p := session(t, dir)
	data, _ := os.ReadFile(p)
	adir := t.TempDir()
	a := filepath.Join(adir, "s.jsonl.zst")
	os.WriteFile(a, testsessions.Archived(data, 1000), 0o644)
	cs := connect(t, Options{})
	same := func(tool string, plainArgs, archArgs map[string]any, out func() any) {
		t.Helper()
		want, got := out(), out()
		call(t, cs, tool, plainArgs, want)
		call(t, cs, tool, archArgs, got)
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if gs := strings.ReplaceAll(string(gb), a, p); gs != string(wb) || len(wb) < 40 {
			t.Errorf("%s: archived %s\nplain %s", tool, gs, wb)
		}
	}
	same("grep", map[string]any{"pattern": "quokka-7", "paths": []string{dir}, "fixed": true},
		map[string]any{"pattern": "quokka-7", "paths": []string{adir}, "fixed": true}, func() any { return &GrepOut{} })
	same("expand", map[string]any{"path": p}, map[string]any{"path": a}, func() any { return &ExpandOut{} })
	same("stats", map[string]any{"paths": []string{p}}, map[string]any{"paths": []string{a}}, func() any { return &StatsOut{} })
}

// TestToolsFindWhatTheCommandLineFinds: a directory given to a tool stands for the sessions the
// command line finds there: an OpenClaw store's sessions (named STORE#SESSION-ID, which a tool
// also takes as a path), not the usage log Qwen Code keeps beside its sessions.
func TestToolsFindWhatTheCommandLineFinds(t *testing.T) {
	home := t.TempDir()
	store := filepath.Join(home, "agents", "main", "agent", openclawstore.FileName)
	os.MkdirAll(filepath.Dir(store), 0o700)
	db, err := sql.Open("sqlite", "file:"+store+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"session","version":3,"id":"s1","timestamp":"2026-09-01T00:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"e1","parentId":null,"timestamp":"2026-09-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"where is the quokka-store"}]}}`,
	}
	for _, q := range []string{`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL,
		event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER,
		navigation_json TEXT, PRIMARY KEY (session_id, seq)) STRICT`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for seq, l := range lines {
		if _, err := db.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)`, "s1", seq, l, 1); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	aside := filepath.Join(home, ".qwen", "usage.jsonl")
	os.MkdirAll(filepath.Dir(aside), 0o755)
	os.WriteFile(aside, []byte("quokka-store is not a session line\n"), 0o644)

	session := store + openclawstore.Sep + "s1"
	cs := connect(t, Options{})
	var g GrepOut
	if res := call(t, cs, "grep", map[string]any{"pattern": "quokka-store", "paths": []string{home}, "fixed": true}, &g); res.IsError {
		t.Fatalf("grep: %s", errText(res))
	}
	if len(g.Hits) != 1 || g.Hits[0].Path != session || len(g.Errors) != 0 {
		t.Errorf("grep over the home: %+v, want one hit in %s", g, session)
	}
	var st StatsOut
	if res := call(t, cs, "stats", map[string]any{"paths": []string{session}}, &st); res.IsError || len(st.Files) != 1 || len(st.Errors) != 0 {
		t.Errorf("stats of %s: %+v %s", session, st, errText(res))
	}
}

package handoff

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestSessionPath: each agent's sessions folder for the project, its home variable first.
func TestSessionPath(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC)
	t.Setenv("TZ", "UTC")
	time.Local = time.UTC
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, tc := range []struct {
		f    transcript.Format
		vars map[string]string
		want string
	}{
		{transcript.FormatClaude, nil, "/h/.claude/projects/-home-me-my-proj/ID.jsonl"},
		{transcript.FormatClaude, map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, "/c/projects/-home-me-my-proj/ID.jsonl"},
		{transcript.FormatCodex, nil, "/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-ID.jsonl"},
		{transcript.FormatCodex, map[string]string{"CODEX_HOME": "/x"}, "/x/sessions/2026/01/02/rollout-2026-01-02T03-04-05-ID.jsonl"},
		{transcript.FormatPi, nil, "/h/.pi/agent/sessions/--home-me-my.proj--/2026-01-02T03-04-05-600Z_ID.jsonl"},
		{transcript.FormatPi, map[string]string{"PI_CODING_AGENT_DIR": "/p"}, "/p/sessions/--home-me-my.proj--/2026-01-02T03-04-05-600Z_ID.jsonl"},
		{transcript.FormatGemini, nil, "/h/.gemini/tmp/" + agent.GeminiProjectHash("/home/me/my.proj") + "/chats/session-2026-01-02T03-04-ID.jsonl"},
		{transcript.FormatGemini, map[string]string{"GEMINI_CLI_HOME": "/g"}, "/g/.gemini/tmp/" + agent.GeminiProjectHash("/home/me/my.proj") + "/chats/session-2026-01-02T03-04-ID.jsonl"},
		{transcript.FormatQwen, nil, "/h/.qwen/projects/-home-me-my-proj/chats/ID.jsonl"},
		{transcript.FormatQwen, map[string]string{"QWEN_HOME": "/q"}, "/q/projects/-home-me-my-proj/chats/ID.jsonl"},
		{transcript.FormatQwen, map[string]string{"QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/r"}, "/r/projects/-home-me-my-proj/chats/ID.jsonl"},
		{transcript.FormatCopilot, nil, "/h/.copilot/session-state/ID/events.jsonl"},
		{transcript.FormatCopilot, map[string]string{"COPILOT_HOME": "/c"}, "/c/session-state/ID/events.jsonl"},
	} {
		got := SessionPath(tc.f, env(tc.vars), "/h", "/home/me/my.proj", "ID", now)
		if got != filepath.FromSlash(tc.want) {
			t.Errorf("%s %v: %s, want %s", tc.f, tc.vars, got, tc.want)
		}
	}
}

// TestSessionPathGeminiProject: Gemini CLI keeps a project's chats under the short name its
// registry gives the project's folder, or the folder whose .project_root names the project; a
// name another project owns is not taken.
func TestSessionPathGeminiProject(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, ".gemini", "tmp")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(string) string { return "" }
	at := func(cwd string) string {
		p := SessionPath(transcript.FormatGemini, getenv, home, cwd, "0123456789", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		rel, _ := filepath.Rel(tmp, p)
		return filepath.ToSlash(rel)
	}
	write(filepath.Join(home, ".gemini", "projects.json"), `{"projects":{"/w/proj":"proj","/w/taken":"other"}}`)
	write(filepath.Join(tmp, "other", ".project_root"), "/w/elsewhere")
	write(filepath.Join(tmp, "found-1", ".project_root"), "/w/found\n")
	for cwd, want := range map[string]string{
		"/w/proj":  "proj/chats/session-2026-01-02T03-04-01234567.jsonl",
		"/w/found": "found-1/chats/session-2026-01-02T03-04-01234567.jsonl",
		"/w/taken": agent.GeminiProjectHash("/w/taken") + "/chats/session-2026-01-02T03-04-01234567.jsonl",
		"/w/new":   agent.GeminiProjectHash("/w/new") + "/chats/session-2026-01-02T03-04-01234567.jsonl",
	} {
		if got := at(cwd); got != want {
			t.Errorf("%s: %s, want %s", cwd, got, want)
		}
	}
}

// TestHistoryUndoesCompactions: the whole history of a session compacted twice holds every
// message once, in order, and no summary.
func TestHistoryUndoesCompactions(t *testing.T) {
	ms, err := History("../../testdata/fixtures/pi-v1-two-compactions.jsonl", transcript.FormatPi)
	if err != nil {
		t.Fatal(err)
	}
	_, eff, err := transcript.LoadFile("../../testdata/fixtures/pi-v1-two-compactions.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prev := 0
	for _, m := range ms {
		if m.Summary {
			t.Errorf("line %d: a summary in the history", m.Line)
		}
		if m.Line <= prev {
			t.Errorf("line %d after line %d", m.Line, prev)
		}
		prev = m.Line
	}
	if len(ms) <= len(eff)-1 {
		t.Errorf("history of %d messages, the effective context %d", len(ms), len(eff))
	}
	if ms[0].TextContent() != "Read main.go" {
		t.Errorf("first message %q", ms[0].TextContent())
	}
}

// TestMapTools: a call of a shell, read, write, edit or search tool takes the target's tool of
// that kind, its arguments under the target's keys, and its result the target's tool name; a
// call of a tool the target has no kind for, or without what its kind needs, is kept as it is.
func TestMapTools(t *testing.T) {
	call := func(id, name, args string) transcript.Message {
		return transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Kind: transcript.BlockToolCall, ID: id, Name: name, Args: args}}}
	}
	result := func(id, name string) transcript.Message {
		return transcript.Message{Role: transcript.RoleTool, Blocks: []transcript.Block{{Kind: transcript.BlockToolResult, ID: id, Name: name, Text: "ok"}}}
	}
	for _, tc := range []struct {
		from, to transcript.Format
		name     string
		args     string
		want     string // name and arguments after
	}{
		{transcript.FormatClaude, transcript.FormatPi, "Bash", `{"command":"go test ./...","description":"run the tests"}`, `bash {"command":"go test ./..."}`},
		{transcript.FormatClaude, transcript.FormatCopilot, "Edit", `{"file_path":"/w/a.go","old_string":"x","new_string":"y"}`, `edit {"new_str":"y","old_str":"x","path":"/w/a.go"}`},
		{transcript.FormatPi, transcript.FormatGemini, "read", `{"path":"/w/a.go"}`, `read_file {"file_path":"/w/a.go"}`},
		{transcript.FormatCopilot, transcript.FormatClaude, "create", `{"path":"/w/n.md","file_text":"hi"}`, `Write {"content":"hi","file_path":"/w/n.md"}`},
		{transcript.FormatQwen, transcript.FormatGemini, "grep_search", `{"pattern":"TODO","path":"/w"}`, `grep_search {"dir_path":"/w","pattern":"TODO"}`},
		{transcript.FormatCodex, transcript.FormatQwen, "shell", `{"command":["bash","-lc","ls -l"]}`, `run_shell_command {"command":"ls -l"}`},
		{transcript.FormatCodex, transcript.FormatClaude, "shell", `{"command":["ls","-l"]}`, `Bash {"command":"ls -l"}`},
		{transcript.FormatGemini, transcript.FormatCodex, "run_shell_command", `{"command":"make"}`, `shell {"command":["bash","-lc","make"]}`},
		// Codex has no read tool; a tool no agent shares; a call without its path.
		{transcript.FormatClaude, transcript.FormatCodex, "Read", `{"file_path":"/w/a.go"}`, `Read {"file_path":"/w/a.go"}`},
		{transcript.FormatClaude, transcript.FormatPi, "WebSearch", `{"query":"go"}`, `WebSearch {"query":"go"}`},
		{transcript.FormatClaude, transcript.FormatPi, "Read", `{"offset":3}`, `Read {"offset":3}`},
	} {
		msgs := []transcript.Message{call("c1", tc.name, tc.args), result("c1", tc.name)}
		got := mapTools(msgs, tc.from, tc.to)
		c, r := got[0].Blocks[0], got[1].Blocks[0]
		if s := c.Name + " " + c.Args; s != tc.want {
			t.Errorf("%s %s to %s: %s, want %s", tc.from, tc.name, tc.to, s, tc.want)
		}
		if r.Name != c.Name {
			t.Errorf("%s %s to %s: the result is named %s, its call %s", tc.from, tc.name, tc.to, r.Name, c.Name)
		}
		if msgs[0].Blocks[0].Name != tc.name {
			t.Errorf("the source's messages changed")
		}
	}
}

package handoff

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
		{transcript.FormatGemini, nil, "/h/.gemini/tmp/" + transcript.GeminiProjectHash("/home/me/my.proj") + "/chats/session-2026-01-02T03-04-ID.jsonl"},
		{transcript.FormatGemini, map[string]string{"GEMINI_CLI_HOME": "/g"}, "/g/.gemini/tmp/" + transcript.GeminiProjectHash("/home/me/my.proj") + "/chats/session-2026-01-02T03-04-ID.jsonl"},
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
		"/w/taken": transcript.GeminiProjectHash("/w/taken") + "/chats/session-2026-01-02T03-04-01234567.jsonl",
		"/w/new":   transcript.GeminiProjectHash("/w/new") + "/chats/session-2026-01-02T03-04-01234567.jsonl",
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

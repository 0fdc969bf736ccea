package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Kimi Code CLI as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): offline against
// agentcheck's fake Chat Completions endpoint (KIMI_MODEL_*), kimi writes a real session
// (~/.kimi-code/sessions/<workspace>/session_<uuid>/agents/main/wire.jsonl: a Read call, then a
// resumed turn) and resumes it (`kimi -S ID -p`); its request is compared with `ctxc load` of
// the log as it was before: as kimi wrote it, and after kimi's own compaction.

// kimiHome prepares a home for Kimi Code CLI (window: the fake model's context window, 0: its
// default), skipping when it is not installed.
func kimiHome(t *testing.T, window int) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "kimi", "Kimi Code CLI not installed (eval \"$(scripts/install-agents.sh)\")",
		func(dir string) (*agentcheck.AgentHome, error) { return agentcheck.NewKimiHome(dir, window) })
}

// kimiCounts is what a log holds: its user messages, the steps that said or called something,
// tool calls and results, compactions and recorded responses.
type kimiCounts struct{ users, assistants, calls, results, compactions, responses int }

func countKimi(t *testing.T, path string) kimiCounts {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c kimiCounts
	steps := map[string]bool{}
	for _, l := range bytes.Split(data, []byte("\n")) {
		r := gjson.ParseBytes(l)
		switch r.Get("type").Str {
		case "context.append_message":
			if r.Get("message.role").Str == "user" {
				c.users++
			}
		case "context.apply_compaction":
			c.compactions++
		case "usage.record":
			c.responses++
		case "context.append_loop_event":
			switch ev := r.Get("event"); ev.Get("type").Str {
			case "content.part", "tool.call":
				steps[ev.Get("stepUuid").Str] = true
				if ev.Get("type").Str == "tool.call" {
					c.calls++
				}
			case "tool.result":
				c.results++
			}
		}
	}
	c.assistants = len(steps)
	return c
}

// checkKimiStats: ctxc stats counts what the log holds (a compaction's summary as a user
// message, as kimi sends it).
func checkKimiStats(t *testing.T, path string) kimiCounts {
	t.Helper()
	st := statsOf(t, path)
	c := countKimi(t, path)
	t.Logf("%+v; the log: %+v", st, c)
	if st.Format != agentcheck.Kimi || st.Messages.User != c.users+c.compactions || st.Messages.Assistant != c.assistants ||
		st.ToolCalls != c.calls || st.ToolResults != c.results || st.Messages.Tool != c.results || st.Compactions != c.compactions ||
		st.Usage == nil || st.Usage.Responses != c.responses {
		t.Errorf("stats of %s: %+v; it holds %+v", path, st, c)
	}
	return c
}

// kimiSession has kimi write a session: a prompt answered with a Read call, then prompts resumed
// by its id. It returns the main agent's log and the session's id.
func kimiSession(t *testing.T, h *agentcheck.AgentHome, prompts ...string) (string, string) {
	t.Helper()
	if err := h.KimiNew("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	files := h.KimiSessions()
	if len(files) != 1 {
		t.Fatalf("kimi wrote %v, want one session", files)
	}
	id := agentcheck.KimiSessionID(files[0])
	for _, p := range prompts {
		if err := h.KimiPrompt(id, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.KimiSessions(); len(got) != 1 {
		t.Fatalf("kimi wrote %v on resume, want its one session", got)
	}
	return files[0], id
}

// kimiAgrees resumes session id and checks that kimi's request is the context `ctxc load` read
// of its log just before; it returns that context.
func kimiAgrees(t *testing.T, h *agentcheck.AgentHome, path, id string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, path, func() ([]byte, error) { return h.KimiResume(id) })
}

// keepKimi copies a log kimi wrote where CTXC_KEEP_AGENT_SESSIONS says (the fixtures).
func keepKimi(t *testing.T, path, name string) {
	if dir := os.Getenv("CTXC_KEEP_AGENT_SESSIONS"); dir != "" {
		copyTo(t, path, filepath.Join(dir, name))
	}
}

// TestAgentKimiSession: kimi's log is counted and loaded as kimi resumes it: the prompt and the
// reminders kimi keeps after it, the call, its result with its note, the answers.
func TestAgentKimiSession(t *testing.T) {
	h := kimiHome(t, 0)
	path, id := kimiSession(t, h, "Second question")
	if c := checkKimiStats(t, path); c.calls != 1 || c.results != 1 || c.compactions != 0 || c.assistants != 3 {
		t.Errorf("kimi's log holds %+v, want one call, its result and three answers", c)
	}
	keepKimi(t, path, "kimi-2.1-tool-resumed.jsonl")
	full := kimiAgrees(t, h, path, id)
	if len(full) < 5 {
		t.Errorf("kimi resumed %d turns, want the prompts, the call, its result and the answers", len(full))
	}
}

// TestAgentKimiOwnCompaction: with a window the fake's usage fills, kimi compacts its context
// before the next step (context.apply_compaction); ctxc loads what it kept (the prompts, joined),
// its summary and its note, as kimi resumes them.
func TestAgentKimiOwnCompaction(t *testing.T) {
	h := kimiHome(t, agentcheck.KimiWindow)
	path, id := kimiSession(t, h, "Second question")
	h.Fake.SetInputTokens(agentcheck.KimiCompactUsage)
	if err := h.KimiPrompt(id, "Third question"); err != nil {
		t.Fatal(err)
	}
	h.Fake.SetInputTokens(0)
	if err := h.KimiPrompt(id, "Fourth question"); err != nil { // (compacted before its step)
		t.Fatal(err)
	}
	if c := checkKimiStats(t, path); c.compactions != 1 {
		t.Fatalf("kimi's log holds %+v, want one compaction", c)
	}
	keepKimi(t, path, "kimi-2.1-own-compaction.jsonl")
	want := loadAs(t, h.Agent, path)
	if len(want) == 0 || len(want[0].Parts) < 2 || !strings.HasPrefix(want[0].Parts[0], "text:Look at the project") ||
		!strings.Contains(want[0].Parts[0], "\n\nFourth question") || !strings.Contains(want[0].Parts[1], "state_snapshot") {
		t.Errorf("the context does not start with the prompts, joined, and kimi's summary: %v", want)
	}
	kimiAgrees(t, h, path, id)
}

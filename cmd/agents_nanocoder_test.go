package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Nanocoder as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): offline against
// agentcheck's fake Chat Completions endpoint (its provider "fake"), it writes a real session
// (<data>/nanocoder/sessions/<id>.json: a read_file call, then a resumed turn) and resumes it
// through its Agent Client Protocol mode (`nanocoder --acp`: session/load, session/prompt), which
// rebuilds the context as its TUI's --resume does; its request is compared with `ctxc load` of
// the session as it was before.

// nanocoderHome prepares a home for Nanocoder, skipping when it is not installed.
func nanocoderHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "nanocoder", "nanocoder not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewNanocoderHome)
}

// nanocoderCounts is what a Nanocoder session holds: its user messages with a text, its tool
// calls and results, and its summaries of a compaction.
type nanocoderCounts struct{ users, calls, results, summaries int }

func countNanocoder(t *testing.T, path string) nanocoderCounts {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c nanocoderCounts
	for _, m := range gjson.GetBytes(data, "messages").Array() {
		switch m.Get("role").Str {
		case "user":
			if m.Get("content").Str != "" {
				c.users++
			}
			if strings.HasPrefix(m.Get("content").Str, "<conversation-summary>") {
				c.summaries++
			}
		case "assistant":
			c.calls += len(m.Get("tool_calls").Array())
		case "tool":
			c.results++
		}
	}
	return c
}

func TestAgentNanocoderSession(t *testing.T) {
	h := nanocoderHome(t)
	id, err := h.NanocoderNew("Look at the project " + agentcheck.ToolWord)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.NanocoderPrompt(id, "Second question"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.NanocoderSessionsDir(), id+".json")
	if got := h.NanocoderSessions(); len(got) != 1 || got[0] != path {
		t.Fatalf("Nanocoder wrote %v, want %s", got, path)
	}
	st := statsOf(t, path)
	c := countNanocoder(t, path)
	t.Logf("%+v; the session: %+v", st, c)
	if st.Format != "nanocoder" || st.Messages.User != c.users || st.ToolCalls != c.calls || st.ToolResults != c.results ||
		c.calls != 1 || c.results != 1 || c.users != 2 || st.Compactions != 0 {
		t.Errorf("stats of the session Nanocoder wrote: %+v; it holds %+v", st, c)
	}
	if got := nanocoderAgrees(t, h, id, path); len(got) < 5 {
		t.Errorf("Nanocoder resumed %d turns, want the prompt, the call, its result, the answers and the second turn", len(got))
	}
}

// nanocoderAgrees resumes session id and checks that its request is the context `ctxc load`
// read of it just before; it returns that context.
func nanocoderAgrees(t *testing.T, h *agentcheck.AgentHome, id, path string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, path, func() ([]byte, error) { return h.NanocoderResume(id) })
}

// TestAgentNanocoderCompaction: Nanocoder compacts a session itself (its context set small, its
// auto-compact summarizes all but its last messages): stats counts the one compaction and load
// is the context Nanocoder resumes, its summary first.
func TestAgentNanocoderCompaction(t *testing.T) {
	h := nanocoderHome(t)
	if err := h.NanocoderRun("Look at the project "+agentcheck.ToolWord+" "+agentcheck.NanocoderPad, "--context-max", "2k"); err != nil {
		t.Fatal(err)
	}
	sessions := h.NanocoderSessions()
	if len(sessions) != 1 {
		t.Fatalf("Nanocoder wrote %v, want one session", sessions)
	}
	path := sessions[0]
	st := statsOf(t, path)
	c := countNanocoder(t, path)
	t.Logf("%+v; the session: %+v", st, c)
	if st.Format != "nanocoder" || c.summaries != 1 || st.Compactions != c.summaries || st.Messages.User != c.users ||
		st.ToolCalls != c.calls || st.ToolResults != c.results {
		t.Errorf("stats of the session Nanocoder compacted: %+v; it holds %+v", st, c)
	}
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	if got := nanocoderAgrees(t, h, id, path); len(got) < 2 || !strings.Contains(got[0].String(), "<conversation-summary>") {
		t.Errorf("Nanocoder resumed %v, want its summary first", got)
	}
}

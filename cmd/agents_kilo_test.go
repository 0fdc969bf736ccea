package cmd

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Kilo Code's CLI as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN), run as opencode
// is: offline against agentcheck's fake endpoint, it writes a real session into its SQLite store
// (a tool call; a resumed turn whose reported usage overflows the model's window; a third turn,
// before which kilo compacts the session itself), and resumes it twice: with the tool call in
// its context, and after its compaction. Each request is the context it rebuilt.

// kiloHome prepares a home for kilo, skipping when it is not installed.
func kiloHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "kilo", "kilo not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewKiloHome)
}

// kiloAgrees checks that ctxc load of the session name reads the context of kilo's resume
// request body.
func kiloAgrees(t *testing.T, h *agentcheck.AgentHome, name string, body []byte) {
	t.Helper()
	requestAgrees(t, h.Agent, name, loadAs(t, h.Agent, name), body)
}

func TestAgentKiloSession(t *testing.T) {
	h := kiloHome(t)
	if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	names, err := opencodestore.Kilo.ListSessions(h.KiloStore())
	if err != nil || len(names) != 1 {
		t.Fatalf("kilo's store holds %v (%v), want one session", names, err)
	}
	_, id, _ := strings.Cut(names[0], opencodestore.Sep)
	first, err := h.OpencodeSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h.Fake.SetInputTokens(5 * agentcheck.OpencodeContext)
	body, err := h.KiloResumeRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	kiloAgrees(t, h, first+opencodestore.Sep+id, body)

	// kilo compacts when the next prompt comes, its last answer over the window.
	if err := h.OpencodeRun(id, "Third question"); err != nil {
		t.Fatal(err)
	}
	store, err := h.OpencodeSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := store + opencodestore.Sep + id
	st := statsOf(t, name)
	c := countOpencodeRows(t, store, id)
	t.Logf("%+v; the store: %+v", st, c)
	if st.Format != "kilo" || st.Messages.User != c.users || st.ToolCalls != c.tools || st.ToolResults != c.tools ||
		st.Compactions != c.compactions || c.compactions != 1 || c.tools != 1 ||
		st.Usage == nil || st.Usage.Responses != c.steps {
		t.Errorf("stats of the session kilo wrote: %+v; its store holds %+v", st, c)
	}
	body, err = h.KiloResumeRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	kiloAgrees(t, h, name, body)
	if code, out, _ := runCLI(t, t.TempDir(), "load", "-q", name); code != 0 || strings.Count(out, "\n") != st.EffMessages {
		t.Errorf("ctxc load (exit %d) gives %d messages, its stats say %d", code, strings.Count(out, "\n"), st.EffMessages)
	}
}

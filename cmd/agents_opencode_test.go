package cmd

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// opencode as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): it runs offline
// against agentcheck's fake endpoint, writes a real session into its SQLite store (a tool call,
// then a resumed turn whose reported usage overflows the model's window, so that opencode
// compacts the session itself), and resumes it; its request is the context it rebuilt.

// opencodeHome prepares a home for opencode, skipping when it is not installed.
func opencodeHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "opencode", "opencode not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewOpencodeHome)
}

// opencodeSession has opencode write a session and compact it; it returns the session's id. The
// first prompt is padded over the tokens opencode keeps of recent turns (2,250 in a window of
// 10,000), so that its compaction keeps the second turn as its tail (tail_start_id).
func opencodeSession(t *testing.T, h *agentcheck.AgentHome) string {
	t.Helper()
	pad := " Notes for this step: " + strings.Repeat("the build must stay green; ", 500)
	if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord+pad); err != nil {
		t.Fatal(err)
	}
	names, err := opencodestore.ListSessions(h.OpencodeStore())
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 {
		t.Fatalf("opencode's store holds %d sessions, want 1: %v", len(names), names)
	}
	_, id, _ := strings.Cut(names[0], opencodestore.Sep)
	h.Fake.SetInputTokens(5 * agentcheck.OpencodeContext)
	if err := h.OpencodeRun(id, "Second question"); err != nil {
		t.Fatal(err)
	}
	return id
}

// opencodeRows is what a store's rows hold for a session, counted in SQL: user messages, tool
// parts, compaction parts and those that keep a tail, and steps that recorded their usage.
type opencodeRows struct{ users, tools, compactions, tails, steps int }

func countOpencodeRows(t *testing.T, store, id string) opencodeRows {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var c opencodeRows
	for q, n := range map[string]*int{
		`SELECT count(*) FROM message WHERE session_id = ? AND json_extract(data, '$.role') = 'user'`:          &c.users,
		`SELECT count(*) FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'tool'`:             &c.tools,
		`SELECT count(*) FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'compaction'`:       &c.compactions,
		`SELECT count(*) FROM part WHERE session_id = ? AND json_extract(data, '$.tail_start_id') IS NOT NULL`: &c.tails,
		`SELECT count(*) FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'step-finish'`:      &c.steps,
	} {
		if err := db.QueryRow(q, id).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestAgentOpencodeSession(t *testing.T) {
	h := opencodeHome(t)
	id := opencodeSession(t, h)
	store, err := h.OpencodeSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := store + opencodestore.Sep + id
	st := statsOf(t, name)
	c := countOpencodeRows(t, store, id)
	t.Logf("%+v; the store: %+v", st, c)
	if st.Format != "opencode" || st.Messages.User != c.users || st.ToolCalls != c.tools || st.ToolResults != c.tools ||
		st.Compactions != c.compactions || c.compactions != 1 || c.tails != 1 || c.tools != 1 ||
		st.Usage == nil || st.Usage.Responses != c.steps {
		t.Errorf("stats of the session opencode wrote: %+v; its store holds %+v", st, c)
	}
	body, err := h.OpencodeResumeRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	requestAgrees(t, h.Agent, name, loadAs(t, h.Agent, name), body)
	if code, out, _ := runCLI(t, t.TempDir(), "load", "-q", name); code != 0 || strings.Count(out, "\n") != st.EffMessages {
		t.Errorf("ctxc load (exit %d) gives %d messages, its stats say %d", code, strings.Count(out, "\n"), st.EffMessages)
	}
}

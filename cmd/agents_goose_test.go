package cmd

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/goose/goosestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Goose as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): run headless, offline
// against agentcheck's fake endpoint, it writes a real session into its SQLite store (a prompt
// answered with a call of its shell tool, then a resumed turn) and resumes it: its request is
// the context it rebuilt from the store.

// gooseHome prepares a home for goose, skipping when it is not installed.
func gooseHome(t *testing.T, small bool) *agentcheck.AgentHome {
	t.Helper()
	if _, ok := agentcheck.MoreBin(agentcheck.GooseCmd); !ok {
		agentcheck.Skip(t, "goose not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	h, err := agentcheck.NewGooseHome(t.TempDir(), small)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

// gooseSession is the one session of goose's store: its name (STORE#ID) and its id.
func gooseSession(t *testing.T, h *agentcheck.AgentHome) (name, id string) {
	t.Helper()
	names, err := goosestore.ListSessions(h.GooseStore())
	if err != nil || len(names) != 1 {
		t.Fatalf("goose's store holds %v (%v), want one session", names, err)
	}
	_, id, _ = strings.Cut(names[0], goosestore.Sep)
	return names[0], id
}

// gooseRows is what a session of Goose's store holds: the user messages that hold a text and
// are the agent's to see, tool requests and responses, and answers that recorded their usage.
type gooseRows struct{ users, calls, results, usages, compactions int }

func countGooseRows(t *testing.T, store, id string) gooseRows {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var c gooseRows
	visible := ` AND coalesce(json_extract(metadata_json, '$.agentVisible'), 1) != 0`
	for q, n := range map[string]*int{
		`SELECT count(*) FROM messages WHERE session_id = ? AND role = 'user' AND EXISTS
			(SELECT 1 FROM json_each(content_json) WHERE json_extract(value, '$.type') = 'text')` + visible: &c.users,
		`SELECT count(*) FROM messages, json_each(content_json) WHERE session_id = ?
			AND json_extract(value, '$.type') = 'toolRequest'` + visible: &c.calls,
		`SELECT count(*) FROM messages, json_each(content_json) WHERE session_id = ?
			AND json_extract(value, '$.type') = 'toolResponse'` + visible: &c.results,
		`SELECT count(*) FROM messages WHERE session_id = ? AND role = 'assistant'
			AND json_extract(metadata_json, '$.usage') IS NOT NULL` + visible: &c.usages,
		// (the summaries: a user message the agent sees and the user does not, not a
		// <turn-context>, after a message hidden from the agent)
		`SELECT count(*) FROM (SELECT role, metadata_json AS md, lag(json_extract(metadata_json, '$.agentVisible'))
			OVER (ORDER BY created_timestamp, id) AS prev FROM messages WHERE session_id = ?)
			WHERE role = 'user' AND prev = 0 AND json_extract(md, '$.userVisible') = 0
			AND json_extract(md, '$.agentVisible') = 1 AND coalesce(json_extract(md, '$.turnContext'), 0) = 0`: &c.compactions,
	} {
		if err := db.QueryRow(q, id).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestAgentGooseSession(t *testing.T) {
	h := gooseHome(t, false)
	if err := h.GooseRun("judged", "Look at the project "+agentcheck.ToolWord, false); err != nil {
		t.Fatal(err)
	}
	if err := h.GooseRun("judged", "Second question", true); err != nil {
		t.Fatal(err)
	}
	store := h.GooseStore()
	name, id := gooseSession(t, h)
	st := statsOf(t, name)
	c := countGooseRows(t, store, id)
	t.Logf("%+v; the store: %+v", st, c)
	if st.Format != "goose" || st.Messages.User != c.users || st.ToolCalls != c.calls || st.ToolResults != c.results ||
		c.calls != 1 || c.results != 1 || c.users != 4 || st.Usage == nil || st.Usage.Responses != c.usages {
		t.Errorf("stats of the session goose wrote: %+v; its store holds %+v", st, c)
	}
	if got := gooseAgrees(t, h, "judged", name); len(got) < 4 {
		t.Errorf("goose resumed %d turns, want the prompt, the call, its result and the answers", len(got))
	}
}

// gooseAgrees checks that ctxc load of the session (name: STORE#ID) is the context goose sends
// when it resumes the session it named sessionName with a new prompt; it returns that context.
func gooseAgrees(t *testing.T, h *agentcheck.AgentHome, sessionName, name string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, name, func() ([]byte, error) { return h.GooseResumeRequest(sessionName) })
}

// TestAgentGooseCompaction: goose compacts a session itself (its context limit small, the last
// answer's usage past its threshold) before the next turn: stats counts the one compaction and
// load is the context goose resumes, its summary first.
func TestAgentGooseCompaction(t *testing.T) {
	h := gooseHome(t, true)
	if err := h.GooseRun("judged", "Look at the project "+agentcheck.ToolWord, false); err != nil {
		t.Fatal(err)
	}
	// The second answer reports a usage past the threshold: goose compacts before the third
	// turn, whose answer reports little again, so that the resume below compacts nothing.
	h.Fake.SetInputTokens(5 * agentcheck.GooseContext)
	if err := h.GooseRun("judged", "Second question", true); err != nil {
		t.Fatal(err)
	}
	h.Fake.SetInputTokens(0)
	if err := h.GooseRun("judged", "Third question", true); err != nil {
		t.Fatal(err)
	}
	name, id := gooseSession(t, h)
	st := statsOf(t, name)
	c := countGooseRows(t, h.GooseStore(), id)
	t.Logf("%+v; the store: %+v", st, c)
	if st.Format != "goose" || c.compactions != 1 || st.Compactions != c.compactions || st.Messages.User != c.users ||
		st.ToolCalls != c.calls || c.calls != 0 {
		t.Errorf("stats of the session goose compacted: %+v; its store holds %+v", st, c)
	}
	if got := gooseAgrees(t, h, "judged", name); len(got) < 3 || !strings.Contains(got[0].String(), agentcheck.SnapshotReply) {
		t.Errorf("goose resumed %v, want its summary, its note and the last turn", got)
	}
}

package cmd

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/goosestore"
)

// Goose as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): run headless, offline
// against agentcheck's fake endpoint, it writes a real session into its SQLite store (a prompt
// answered with a call of its shell tool, then a resumed turn) and resumes it: its request is
// the context it rebuilt from the store.

// gooseHome prepares a home for goose, skipping when it is not installed.
func gooseHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	if _, ok := agentcheck.MoreBin(agentcheck.GooseCmd); !ok {
		agentcheck.Skip(t, "goose not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	h, err := agentcheck.NewGooseHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

// gooseRows is what a session of Goose's store holds: the user messages that hold a text and
// are the agent's to see, tool requests and responses, and answers that recorded their usage.
type gooseRows struct{ users, calls, results, usages int }

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
	} {
		if err := db.QueryRow(q, id).Scan(n); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func TestAgentGooseSession(t *testing.T) {
	h := gooseHome(t)
	if err := h.GooseRun("judged", "Look at the project "+agentcheck.ToolWord, false); err != nil {
		t.Fatal(err)
	}
	if err := h.GooseRun("judged", "Second question", true); err != nil {
		t.Fatal(err)
	}
	store := h.GooseStore()
	names, err := goosestore.ListSessions(store)
	if err != nil || len(names) != 1 {
		t.Fatalf("goose's store holds %v (%v), want one session", names, err)
	}
	name := names[0]
	_, id, _ := strings.Cut(name, goosestore.Sep)
	st := statsOf(t, name)
	c := countGooseRows(t, store, id)
	t.Logf("%+v; the store: %+v", st, c)
	if st.Format != "goose" || st.Messages.User != c.users || st.ToolCalls != c.calls || st.ToolResults != c.results ||
		c.calls != 1 || c.results != 1 || c.users != 4 || st.Usage == nil || st.Usage.Responses != c.usages {
		t.Errorf("stats of the session goose wrote: %+v; its store holds %+v", st, c)
	}
	want := loadAs(t, h.Agent, name)
	body, err := h.GooseResumeRequest("judged")
	if err != nil {
		t.Fatal(err)
	}
	got, err := agentcheck.FromRequest(h.Agent, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := agentcheck.Compare(h.Agent, want, got); diff != "" {
		t.Errorf("ctxc load of %s disagrees with goose (%d agent turns, %d ctxc turns):\n%s", name, len(got), len(want), diff)
	}
	if len(got) < 4 {
		t.Errorf("goose resumed %d turns, want the prompt, the call, its result and the answers", len(got))
	}
}

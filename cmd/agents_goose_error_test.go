package cmd

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/goosestore"
)

// TestAgentGooseToolError: a call of a tool goose does not have is stored as an error result
// (toolResult status "error"); ctxc counts it as a result and load sends its text as goose does.
func TestAgentGooseToolError(t *testing.T) {
	h := gooseHome(t, false)
	h.Fake.Tool, h.Fake.Undeclared = "no_such_tool", true
	if err := h.GooseRun("judged", "Look at the project "+agentcheck.ToolWord, false); err != nil {
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
	if st.ToolCalls != 1 || st.ToolResults != c.results || c.results != 1 {
		t.Errorf("stats of the session goose wrote: %+v; its store holds %+v", st, c)
	}
	if errs := gooseErrorResults(t, store, id); errs != 1 {
		t.Fatalf("goose stored %d error results, want the refused call's", errs)
	}
	got := gooseAgrees(t, h, "judged", name)
	t.Logf("goose resumed %d turns", len(got))
}

// gooseErrorResults counts the tool responses of a session that goose stored as errors.
func gooseErrorResults(t *testing.T, store, id string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	q := `SELECT count(*) FROM messages, json_each(content_json) WHERE session_id = ?
		AND json_extract(value, '$.type') = 'toolResponse' AND json_extract(value, '$.toolResult.status') = 'error'`
	if err := db.QueryRow(q, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

package cmd

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// The model calls a tool the agent does not have: every agent answers the call with an error
// result of its own, stored in its own shape. These judges check that ctxc counts that result
// and that `ctxc load` sends its text as the agent does when it resumes the session.

// undeclaredTool is the tool the fake calls in these tests: no agent has it.
const undeclaredTool = "no_such_tool"

// callUndeclared makes the agent's fake model call undeclaredTool.
func callUndeclared(h *agentcheck.AgentHome) {
	h.Fake.CallUndeclared(undeclaredTool)
}

func TestAgentToolErrorFileAgents(t *testing.T) {
	for _, agent := range []string{agentcheck.Gemini, agentcheck.Qwen, agentcheck.Continue} {
		t.Run(agent, func(t *testing.T) {
			h := moreAgent(t, agent)
			callUndeclared(h)
			path := agentSession(t, h, "")
			st := statsOf(t, path)
			t.Logf("%+v", st)
			if st.ToolCalls != 1 || st.ToolResults < 1 {
				t.Errorf("stats of the session %s wrote: %+v", agent, st)
			}
			agreesOnResume(t, agent, path)
		})
	}
}

func TestAgentToolErrorCline(t *testing.T) {
	h := clineHome(t)
	callUndeclared(h)
	if err := h.ClineRun("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	if st := statsOf(t, path); st.ToolCalls != 1 || st.ToolResults != 1 {
		t.Errorf("stats of the session Cline wrote: %+v", st)
	}
	clineAgrees(t, h, id, path)
}

func TestAgentToolErrorOpencode(t *testing.T) {
	h := opencodeHome(t)
	callUndeclared(h)
	if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	names, err := opencodestore.ListSessions(h.OpencodeStore())
	if err != nil || len(names) != 1 {
		t.Fatalf("opencode's store holds %v (%v), want one session", names, err)
	}
	_, id, _ := strings.Cut(names[0], opencodestore.Sep)
	store, err := h.OpencodeSnapshot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := store + opencodestore.Sep + id
	if st := statsOf(t, name); st.ToolCalls != 1 || st.ToolResults != 1 {
		t.Errorf("stats of the session opencode wrote: %+v", st)
	}
	body, err := h.OpencodeResumeRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := agentcheck.FromRequest(h.Agent, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := agentcheck.Compare(h.Agent, loadAs(t, h.Agent, name), got); diff != "" {
		t.Errorf("ctxc load disagrees with opencode:\n%s", diff)
	}
}

// TestAgentToolErrorGoose: goose stores the refused call as an error result (toolResult status
// "error", its message only).
func TestAgentToolErrorGoose(t *testing.T) {
	h := gooseHome(t, false)
	callUndeclared(h)
	if err := h.GooseRun("judged", "Look at the project "+agentcheck.ToolWord, false); err != nil {
		t.Fatal(err)
	}
	name, id := gooseSession(t, h)
	if st := statsOf(t, name); st.ToolCalls != 1 || st.ToolResults != 1 {
		t.Errorf("stats of the session goose wrote: %+v", st)
	}
	if errs := gooseErrorResults(t, h.GooseStore(), id); errs != 1 {
		t.Fatalf("goose stored %d error results, want the refused call's", errs)
	}
	gooseAgrees(t, h, "judged", name)
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

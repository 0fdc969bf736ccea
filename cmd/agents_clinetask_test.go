package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// The Cline CLI 2.x as the judge of the tasks of Cline's extension (scripts/agent-packages.txt
// pins cline@2.18.0 as cline2; CTXC_MORE_AGENTS_BIN): it runs the extension's core and keeps its
// tasks as the extension does (~/.cline/data/tasks/<id>/api_conversation_history.json). Offline
// against agentcheck's fake Chat Completions endpoint it writes a task with a tool call, then
// resumes it (`cline task -T ID`); the request is the context it rebuilt, compared with
// `ctxc load` of the task as it was before.

// clineTaskHome prepares a home for Cline 2.x, skipping when it is not installed.
func clineTaskHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "cline2", "cline2 (cline@2.18.0) not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewClineTaskHome)
}

// clineTaskAgrees resumes task id and checks that its request is the context `ctxc load` read
// of the task just before.
func clineTaskAgrees(t *testing.T, h *agentcheck.AgentHome, id, path string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, path, func() ([]byte, error) { return h.ClineTaskResume(id) })
}

func TestAgentClineTaskResume(t *testing.T) {
	h := clineTaskHome(t)
	if err := h.ClineTaskRun("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	ids := h.ClineTasks()
	if len(ids) != 1 {
		t.Fatalf("Cline 2.x wrote %d tasks, want 1: %v", len(ids), ids)
	}
	id, path := ids[0], h.ClineTaskHistory(ids[0])
	st := statsOf(t, path)
	t.Logf("%+v", st)
	// The prompt, the read and its result (a text of the next user message), the completion.
	if st.Format != "cline-task" || st.Messages.User != 2 || st.Messages.Assistant != 2 || st.ToolCalls != 2 ||
		st.Usage == nil || st.Usage.Responses != 2 {
		t.Errorf("stats of the task Cline 2.x wrote: %+v", st)
	}
	clineTaskAgrees(t, h, id, path)
	// A directory walk of its home finds the task (now with the resumed turn), and nothing else
	// of Cline's.
	if st := statsOf(t, filepath.Join(h.Home, ".cline")); st.Format != "cline-task" || st.Messages.User != 3 {
		t.Errorf("stats of ~/.cline: %+v", st)
	}
	keepClineTask(t, path)
}

// keepClineTask copies a task's folder into $CTXC_KEEP_AGENT_SESSIONS (the fixtures' source).
func keepClineTask(t *testing.T, path string) {
	dir := os.Getenv("CTXC_KEEP_AGENT_SESSIONS")
	if dir == "" {
		return
	}
	if err := exec.Command("cp", "-r", filepath.Dir(path), dir).Run(); err != nil {
		t.Fatal(err)
	}
}

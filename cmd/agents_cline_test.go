package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/clinesess"
)

// The Cline CLI as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): offline against
// agentcheck's fake Chat Completions endpoint, it writes real sessions
// (~/.cline/data/sessions/<id>/: a tool call reading a file long enough for Cline to cut its
// result; a session it compacts itself) and resumes them
// through its Agent Client Protocol mode (`cline --acp`: session/load, session/prompt); each
// request is the context it rebuilt, compared with `ctxc load` of the session as it was before.

// clineHome prepares a home for Cline, skipping when it is not installed.
func clineHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	if _, ok := agentcheck.MoreBin("cline"); !ok {
		agentcheck.Skip(t, "cline not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	h, err := agentcheck.NewClineHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

// clineSession is the one session Cline wrote in h.
func clineSession(t *testing.T, h *agentcheck.AgentHome) (id, path string) {
	t.Helper()
	ids := h.ClineSessions()
	if len(ids) != 1 {
		t.Fatalf("Cline wrote %d sessions, want 1: %v", len(ids), ids)
	}
	return ids[0], h.ClineMessages(ids[0])
}

// clineAgrees resumes session id and checks that its request is the context `ctxc load` read
// of it just before.
func clineAgrees(t *testing.T, h *agentcheck.AgentHome, id, path string) []agentcheck.Turn {
	t.Helper()
	want := loadAs(t, h.Agent, path)
	body, err := h.ClineResume(id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := agentcheck.FromRequest(h.Agent, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := agentcheck.Compare(h.Agent, want, got); diff != "" {
		t.Errorf("ctxc load of %s disagrees with Cline (%d agent turns, %d ctxc turns):\n%s", path, len(got), len(want), diff)
	}
	if len(got) == 0 {
		t.Error("Cline resumed an empty context")
	}
	return got
}

func TestAgentClineSession(t *testing.T) {
	h := clineHome(t)
	// notes long enough for Cline to cut the result of its read in the middle before it sends it
	var notes strings.Builder
	for i := range 400 {
		fmt.Fprintf(&notes, "line %d of the notes: the build must stay green\n", i)
	}
	if err := os.WriteFile(filepath.Join(h.Proj, "notes.txt"), []byte(notes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.ClineRun("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	clineAgrees(t, h, id, path)
	clineAgrees(t, h, id, path) // (the resumed turn, stored by Cline, resumed in turn)
	st := statsOf(t, path)
	t.Logf("%+v", st)
	// Two prompts and the first one's tool call; the call, "Done." and two "OK".
	if st.Format != "cline" || st.Messages.User != 3 || st.Messages.Assistant != 4 || st.ToolCalls != 1 ||
		st.ToolResults != 1 || st.Messages.Tool != 1 || st.EffMessages != 8 || st.Usage == nil || st.Usage.Responses != 4 {
		t.Errorf("stats of the session Cline wrote: %+v", st)
	}
	// A directory walk of its home finds the session, and not its manifest.
	if st := statsOf(t, filepath.Join(h.Home, ".cline")); st.Format != "cline" || st.EffMessages != 8 {
		t.Errorf("stats of ~/.cline: %+v", st)
	}
	keepClineSession(t, path, "cline-")
}

// TestAgentClineOwnCompaction: Cline compacts the session itself (--compaction basic, a request
// over its budget once the fake reports a large usage), keeping every message in
// <id>.messages.json and the compacted ones in <id>.compaction.json; ctxc counts the compaction,
// loads the compacted messages then the later ones, and Cline sends that on resume.
func TestAgentClineOwnCompaction(t *testing.T) {
	h := clineHome(t)
	h.Fake.SetInputTokens(1_000_000)
	if err := h.ClineRun("Look at the project "+agentcheck.ToolWord+" "+agentcheck.ClinePad, "--compaction", "basic"); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	if _, err := os.Stat(clinesess.CompactionPath(path)); err != nil {
		t.Fatalf("Cline did not compact: %v", err)
	}
	st := statsOf(t, path)
	t.Logf("%+v", st)
	if st.Format != "cline" || st.Compactions != 1 || st.ToolCalls != 1 || st.EffMessages >= st.Messages.User+st.Messages.Assistant+st.Messages.Tool {
		t.Errorf("stats of the session Cline compacted: %+v", st)
	}
	got := clineAgrees(t, h, id, path)
	for _, turn := range got {
		if strings.Contains(turn.String(), "call:") {
			t.Errorf("Cline resumed the call its compaction left out: %v", got)
		}
	}
	keepClineSession(t, path, "cline-compacted-")
}

// keepClineSession copies a session's export, which the fixtures are.
func keepClineSession(t *testing.T, path, prefix string) {
	dir := os.Getenv("CTXC_KEEP_AGENT_SESSIONS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, prefix+strings.TrimSuffix(filepath.Base(path), clinesess.MessagesSuffix)+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := clinesess.Export(path, f); err != nil {
		t.Fatal(err)
	}
}

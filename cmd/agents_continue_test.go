package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Continue CLI as a judge (scripts/agent-packages.txt): cn runs offline against agentcheck's
// fake Chat Completions endpoint, writes a real session (~/.continue/sessions/<id>.json: a tool
// call, then two turns resumed with --resume) and resumes a copy of it with `cn --fork ID`; its
// request is the context it rebuilt.

func TestAgentContinueSession(t *testing.T) {
	h := moreAgent(t, agentcheck.Continue)
	path := agentSession(t, h, "")
	st := statsOf(t, path)
	t.Logf("%+v", st)
	// Three prompts; the model's call, its "Done." and two "OK"; the call's result.
	if st.Format != "continue-cli" || st.Messages.User != 3 || st.Messages.Assistant != 4 || st.ToolCalls != 1 ||
		st.ToolResults != 1 || st.Messages.Tool != 1 || st.EffMessages != 8 || st.Usage == nil || st.Usage.Responses != 4 {
		t.Errorf("stats of the session Continue CLI wrote: %+v", st)
	}
	agreesOnResume(t, h.Agent, path)
	// A directory walk of its home finds the session, and not its list of sessions.
	if st := statsOf(t, filepath.Join(h.Home, ".continue")); st.Format != "continue-cli" {
		t.Errorf("stats of ~/.continue: %+v", st)
	}
	keepSession(t, path, "continue-")
}

// TestAgentContinueOwnCompaction: Continue CLI compacts its session itself (a turn that
// overflows its model's window), which replaces the history with an assistant message marked
// "conversationSummary"; ctxc counts it, starts the context there, and loads what Continue CLI
// sends on resume.
func TestAgentContinueOwnCompaction(t *testing.T) {
	h := moreAgent(t, agentcheck.Continue)
	path := agentSession(t, h, "\n\nNotes for this step: "+strings.Repeat("the build must stay green; ", 1000))
	if err := h.CompactingTurn("Next question"); err != nil {
		t.Fatal(err)
	}
	st := statsOf(t, path)
	if st.Compactions != 1 {
		t.Fatalf("Continue CLI's /compact not seen: %+v", st)
	}
	want := loadAs(t, h.Agent, path)
	if len(want) == 0 || !strings.Contains(want[0].String(), agentcheck.SnapshotReply) {
		t.Errorf("the context does not start with Continue CLI's summary: %v", want)
	}
	agreesOnResume(t, h.Agent, path)
	keepSession(t, path, "own-continue-")
}

// TestAgentContinueCompaction: ctxc compacts a session Continue CLI wrote into a new session
// (-o), marked as Continue CLI marks its own compaction; cn resumes ctxc's summary and the tail,
// fewer turns than before, and `ctxc load` agrees with it. In place is refused: Continue CLI
// rewrites its session files whole.
func TestAgentContinueCompaction(t *testing.T) {
	h := moreAgent(t, agentcheck.Continue)
	pad := "\n\nNotes for this step: " + strings.Repeat("the build must stay green; ", 60)
	path := agentSession(t, h, pad)
	full := agreesOnResume(t, agentcheck.Continue, path)
	dir := t.TempDir()
	out := filepath.Join(dir, "new.json")
	if _, res, ok := compactCopy(t, dir, path, "-o", out); !ok {
		t.Fatalf("not compacted: %v", res)
	}
	if st := statsOf(t, out); st.Compactions != 1 || st.Format != "continue-cli" {
		t.Errorf("stats after compaction: %+v", st)
	}
	got := agreesOnResume(t, agentcheck.Continue, out)
	if summaryTurn(got) < 0 {
		t.Errorf("Continue CLI does not send ctxc's summary: %v", got)
	}
	if len(got) >= len(full) {
		t.Errorf("Continue CLI resumes %d turns after compaction, %d before", len(got), len(full))
	}
	cp := filepath.Join(dir, filepath.Base(path))
	before, _ := os.ReadFile(cp)
	code, _, errOut := runCLI(t, dir, "compact", "--provider", "extractive", "--threshold", fmt.Sprint(compactThreshold(t, dir, cp)),
		"--target", "300", "--keep-tail", "4", "--tiers", "80,0,0", cp)
	after, _ := os.ReadFile(cp)
	if code == 0 || string(after) != string(before) || !strings.Contains(errOut, "Continue CLI rewrites whole") {
		t.Errorf("compact in place: exit %d (%s), file changed: %v", code, errOut, string(after) != string(before))
	}
}

func keepSession(t *testing.T, path, prefix string) {
	if dir := os.Getenv("CTXC_KEEP_AGENT_SESSIONS"); dir != "" {
		copyTo(t, path, filepath.Join(dir, prefix+filepath.Base(path)))
	}
}

// TestContinueSessionsAcrossCommands: archive grows an archive by the lines a session gains; a
// Continue CLI session, rewritten whole, is left out with a note. stats and grep of its folder
// read it (a directory walk takes its *.json, not sessions.json), search finds it with no PATH
// (its resume command is `cn --fork ID`), and handoff takes it as its
// source (its last byte, "}" without a line end, is no cut line of a snapshot).
func TestContinueSessionsAcrossCommands(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, ".continue", "sessions")
	data, err := os.ReadFile("../testdata/fixtures/continue-1.5-tool-resumed.json")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(sessions, 0o755)
	os.WriteFile(filepath.Join(sessions, "b084c3d6.json"), data, 0o644)
	os.WriteFile(filepath.Join(sessions, "sessions.json"), []byte("[]"), 0o644)
	code, _, errOut := runCLI(t, dir, "archive", filepath.Join(dir, ".continue"), filepath.Join(dir, "arch"))
	if code != 0 || !strings.Contains(errOut, "rewritten whole: not archived") {
		t.Errorf("archive: exit %d: %s", code, errOut)
	}
	if st := statsOf(t, filepath.Join(dir, ".continue")); st.Format != "continue-cli" || st.EffMessages != 8 {
		t.Errorf("stats: %+v", st)
	}
	code, out, errOut := runCLI(t, dir, "grep", "Third question", filepath.Join(dir, ".continue"))
	if code != 0 || !strings.Contains(out, "b084c3d6.json:7:") {
		t.Errorf("grep: exit %d: %s %s", code, out, errOut)
	}
	// search with no PATH reads ~/.continue/sessions, and names the command that continues it.
	t.Setenv("HOME", dir)
	code, out, errOut = runCLI(t, dir, "search", "Third question")
	if code != 0 || !strings.Contains(out, "b084c3d6.json:7") || !strings.Contains(out, "cn --fork b084c3d6-3fac-4c91-86d1-9448a0df7453") {
		t.Errorf("search: exit %d: %s %s", code, out, errOut)
	}
	out = filepath.Join(dir, "handed.jsonl")
	if code, _, errOut := runCLI(t, dir, "handoff", "--to", "claude-code", "-o", out, filepath.Join(sessions, "b084c3d6.json")); code != 0 {
		t.Fatalf("handoff: exit %d: %s", code, errOut)
	}
	if st := statsOf(t, out); st.Format != "claude-code" || st.EffMessages != 8 {
		t.Errorf("stats of the handed-off session: %+v", st)
	}
}

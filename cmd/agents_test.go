package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Tests named TestAgent* ask the REAL agents (../shared/tools/agents: Claude Code, Codex, pi,
// resumed against a local fake model) what context they rebuild from a file, and compare it with
// `ctxc load`. They skip when the agents are not installed; .ci/run installs them and fails if
// these tests skipped.

func agentTools(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	resume, ok := agentcheck.Tools(wd)
	if !ok {
		t.Skip("agents not installed (../shared/tools/agents/install.sh)")
	}
	return resume
}

// agentFiles lists the agent samples and fixtures of one agent format.
func agentFiles(t *testing.T) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	add := func(agent, pattern string) {
		ms, _ := filepath.Glob(pattern)
		files[agent] = append(files[agent], ms...)
	}
	add(agentcheck.ClaudeCode, "../../shared/samples/claude-code/*.jsonl")
	add(agentcheck.Codex, "../../shared/samples/codex/*.jsonl")
	add(agentcheck.Pi, "../../shared/samples/pi/*.jsonl")
	add(agentcheck.ClaudeCode, "../testdata/fixtures/claude-*.jsonl")
	add(agentcheck.Codex, "../testdata/fixtures/codex-*.jsonl")
	add(agentcheck.Pi, "../testdata/fixtures/pi-*.jsonl")
	return files
}

// notResumable: files the agent itself does not open as a session (said in README "Agents as
// judges"): Claude Code subagent transcripts are not resumable by id, and a file with no
// conversation record makes Claude Code start an empty session.
func notResumable(agent, path string) string {
	base := filepath.Base(path)
	switch {
	case agent == agentcheck.ClaudeCode && strings.Contains(base, "agent-"):
		return "a subagent transcript: Claude Code does not resume it by id"
	case agent == agentcheck.ClaudeCode && strings.Contains(base, "no-messages"):
		return "no conversation record: Claude Code has no session to resume"
	case agent == agentcheck.Codex && strings.Contains(base, "bare"):
		return "a bare item list without session_meta: Codex cannot resume it by id"
	}
	return ""
}

// loadAs is `ctxc load` in the shape the agent sends.
func loadAs(t *testing.T, agent, path string) []agentcheck.Turn {
	t.Helper()
	as := "openai"
	if agent == agentcheck.ClaudeCode {
		as = "anthropic"
	}
	code, out, errOut := runCLI(t, t.TempDir(), "load", "-q", "--as", as, path)
	if code != 0 {
		t.Fatalf("ctxc load %s: exit %d: %s", path, code, errOut)
	}
	turns, err := agentcheck.FromLoad(agent, []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

// agentTurns resumes path in the real agent and reduces its request.
func agentTurns(t *testing.T, resume, agent, path string) []agentcheck.Turn {
	t.Helper()
	body, err := agentcheck.Resume(resume, agent, path)
	if err != nil {
		t.Fatal(err)
	}
	turns, err := agentcheck.FromRequest(agent, body)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

// agentSlots bounds how many agents run at once (each is a Node process or two).
var agentSlots = make(chan struct{}, 2)

func withAgentSlot(fn func()) {
	agentSlots <- struct{}{}
	defer func() { <-agentSlots }()
	fn()
}

// TestAgentLoadAgrees: for every agent sample and fixture, `ctxc load` gives the context the
// agent itself sends on resume.
func TestAgentLoadAgrees(t *testing.T) {
	resume := agentTools(t)
	var mu sync.Mutex
	for agent, paths := range agentFiles(t) {
		for _, p := range paths {
			t.Run(agent+"/"+filepath.Base(p), func(t *testing.T) {
				t.Parallel()
				if why := notResumable(agent, p); why != "" {
					t.Skip(why)
				}
				var got []agentcheck.Turn
				withAgentSlot(func() { got = agentTurns(t, resume, agent, p) })
				want := loadAs(t, agent, p)
				if diff := agentcheck.Compare(agent, want, got); diff != "" {
					mu.Lock()
					defer mu.Unlock()
					t.Errorf("%s: ctxc load disagrees with %s (%d agent turns, %d ctxc turns):\n%s", p, agent, len(got), len(want), diff)
				}
			})
		}
	}
}

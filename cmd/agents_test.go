package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// compactCopy copies path into dir (with an old modification time) and compacts it with the
// built-in summarizer under a low threshold; extra are more flags (-o). It returns the copy and
// whether anything was compacted.
func compactCopy(t *testing.T, dir, path string, extra ...string) (string, map[string]any, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(cp, old, old)
	// A threshold just above what head + summary + tail will take, so that every file with a
	// middle is compacted.
	code, out, errOut := runCLI(t, dir, "compact", "--json", "--dry-run", "--threshold", "1", "--target", "300", "--keep-tail", "4", cp)
	if code != 0 {
		t.Fatalf("ctxc compact --dry-run %s: exit %d: %s", path, code, errOut)
	}
	var plan struct {
		Plan struct {
			Before int `json:"tokens_before"`
			After  int `json:"predicted_tokens_after"`
		} `json:"plan"`
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"type":"file"`) {
			json.Unmarshal([]byte(l), &plan)
		}
	}
	threshold := plan.Plan.After + 50
	if threshold >= plan.Plan.Before {
		threshold = plan.Plan.Before - 1
	}
	args := append([]string{"compact", "--json", "--provider", "extractive", "--threshold", fmt.Sprint(max(threshold, 1)), "--target", "300", "--keep-tail", "4"}, extra...)
	code, out, errOut = runCLI(t, dir, append(args, cp)...)
	if code != 0 {
		t.Fatalf("ctxc compact %s: exit %d: %s %s", path, code, out, errOut)
	}
	var res map[string]any
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"type":"file"`) {
			json.Unmarshal([]byte(l), &res)
		}
	}
	if res == nil {
		t.Fatalf("no file outcome in %s", out)
	}
	return cp, res, res["status"] == "compacted"
}

// summaryTurn finds the turn that holds ctxc's summary.
func summaryTurn(turns []agentcheck.Turn) int {
	for i, tr := range turns {
		for _, p := range tr.Parts {
			if strings.Contains(p, "[ctxc] The earlier part of this conversation was compacted") {
				return i
			}
		}
	}
	return -1
}

// TestAgentResumesCompaction: after ctxc compacts an agent's file in place, and after -o, the
// real agent resumes head + ctxc's summary + tail, far smaller than before, and `ctxc load`
// agrees with it; in place, the bytes before the append are unchanged.
func TestAgentResumesCompaction(t *testing.T) {
	resume := agentTools(t)
	compacted := map[string]int{}
	var mu sync.Mutex
	t.Cleanup(func() {
		for _, agent := range []string{agentcheck.ClaudeCode, agentcheck.Codex, agentcheck.Pi} {
			if compacted[agent] == 0 && !t.Failed() {
				t.Errorf("no %s file was compacted: the check proved nothing for it", agent)
			}
		}
	})
	for agent, paths := range agentFiles(t) {
		for _, p := range paths {
			for _, mode := range []string{"in-place", "new-session"} {
				t.Run(agent+"/"+mode+"/"+filepath.Base(p), func(t *testing.T) {
					t.Parallel()
					if why := notResumable(agent, p); why != "" {
						t.Skip(why)
					}
					dir := t.TempDir()
					var extra []string
					if mode == "new-session" {
						extra = []string{"-o", filepath.Join(dir, "new.jsonl")}
					}
					before, _ := os.ReadFile(p)
					cp, res, ok := compactCopy(t, dir, p, extra...)
					if !ok {
						t.Skipf("not compacted: %v", res["reason"])
					}
					target := cp
					if mode == "new-session" {
						target = filepath.Join(dir, "new.jsonl")
						if res["session"] == nil || res["session"] == "" {
							t.Errorf("no session id in %v", res)
						}
						if got, _ := os.ReadFile(cp); string(got) != string(before) {
							t.Error("-o changed the source")
						}
					} else if got, _ := os.ReadFile(cp); !strings.HasPrefix(string(got), string(before)) {
						t.Error("the bytes before the append changed")
					}
					var full, got []agentcheck.Turn
					withAgentSlot(func() {
						full = agentTurns(t, resume, agent, p)
						got = agentTurns(t, resume, agent, target)
					})
					want := loadAs(t, agent, target)
					if diff := agentcheck.Compare(agent, want, got); diff != "" {
						t.Errorf("ctxc load disagrees with %s after compaction:\n%s", agent, diff)
					}
					if summaryTurn(got) < 0 {
						t.Errorf("%s does not send ctxc's summary", agent)
					}
					if len(got) >= len(full) {
						t.Errorf("%s resumes %d turns after compaction, %d before", agent, len(got), len(full))
					}
					// The tail: the last turn is the same as before compaction.
					orig := loadAs(t, agent, p)
					if n := len(want); n > 0 && len(orig) > 0 && want[n-1].String() != orig[len(orig)-1].String() {
						t.Errorf("last turn changed:\n  before: %s\n  after:  %s", orig[len(orig)-1], want[n-1])
					}
					mu.Lock()
					compacted[agent]++
					mu.Unlock()
				})
			}
		}
	}
}

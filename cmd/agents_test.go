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
	"github.com/ctxc/ctxc/internal/testsessions"
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
		agentcheck.Skip(t, "agents not installed (../shared/tools/agents/install.sh)")
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

// notResumable: files the agent itself does not open as a session (said in docs/formats.md "Agents as
// judges"): Claude Code subagent transcripts are not resumable by id, and a file with no
// conversation record makes Claude Code start an empty session.
func notResumable(agent, path string) string {
	base := filepath.Base(path)
	switch {
	case agent == agentcheck.ClaudeCode && (strings.Contains(base, "agent-") || strings.Contains(base, "subagent") || strings.Contains(base, "-agent.")):
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

// compactThreshold is the --threshold at which `ctxc compact` of cp (with the arguments
// compactCopy gives) compacts it, keeping its normal zones.
func compactThreshold(t *testing.T, dir, cp string) int {
	t.Helper()
	// A threshold with room to spare above what head + summary + tail take, so that every file
	// with a middle is compacted and its normal zones are kept (the emergency level has tests of
	// its own): the tokens first, then the normal plan just under them.
	dry := func(threshold int) (before, after int) {
		code, out, errOut := runCLI(t, dir, "compact", "--json", "--dry-run", "--threshold", fmt.Sprint(threshold), "--target", "300", "--keep-tail", "4", "--tiers", "80,0,0", cp)
		if code != 0 {
			t.Fatalf("ctxc compact --dry-run %s: exit %d: %s", cp, code, errOut)
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
		return plan.Plan.Before, plan.Plan.After
	}
	before, _ := dry(1)
	_, after := dry(max(before-1, 1))
	threshold := after*3/2 + 100
	if threshold >= before {
		threshold = before - 1
	}
	return max(threshold, 1)
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
	threshold := compactThreshold(t, dir, cp)
	args := append([]string{"compact", "--json", "--provider", "extractive", "--threshold", fmt.Sprint(threshold), "--target", "300", "--keep-tail", "4", "--tiers", "80,0,0"}, extra...)
	code, out, errOut := runCLI(t, dir, append(args, cp)...)
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

// TestAgentResumesAfterCrash: a compaction killed in the middle of its append leaves the file as
// it was plus a prefix of the append (one write). For every such prefix at and around each line
// end of the append, the real agent still resumes the file and agrees with `ctxc load`.
func TestAgentResumesAfterCrash(t *testing.T) {
	resume := agentTools(t)
	for agent, fixture := range map[string]string{
		agentcheck.ClaudeCode: "../testdata/fixtures/claude-long-tools.jsonl",
		agentcheck.Codex:      "../testdata/fixtures/codex-long-tools.jsonl",
		agentcheck.Pi:         "../testdata/fixtures/pi-long-tools.jsonl",
	} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			original, _ := os.ReadFile(fixture)
			cp, res, ok := compactCopy(t, dir, fixture)
			if !ok {
				t.Fatalf("not compacted: %v", res)
			}
			done, _ := os.ReadFile(cp)
			appended := done[len(original):]
			cuts := map[int]bool{0: true, 1: true, len(appended) - 1: true}
			for i, b := range appended {
				if b == '\n' {
					cuts[i] = true   // the line without its newline
					cuts[i+1] = true // the whole line
					cuts[i/2] = true // cut inside a line
				}
			}
			// Claude Code is placed by the file's name when it is its session id (resume.sh then
			// needs not parse a torn line).
			name := "9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b.jsonl"
			if agent != agentcheck.ClaudeCode {
				name = filepath.Base(fixture)
			}
			for cut := range cuts {
				if cut > len(appended) {
					continue
				}
				p := filepath.Join(dir, fmt.Sprint(cut), name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, append(append([]byte{}, original...), appended[:cut]...), 0o644)
				var got []agentcheck.Turn
				withAgentSlot(func() { got = agentTurns(t, resume, agent, p) })
				want := loadAs(t, agent, p)
				if diff := agentcheck.Compare(agent, want, got); diff != "" {
					t.Errorf("append cut at byte %d of %d: ctxc load disagrees with %s:\n%s", cut, len(appended), agent, diff)
				}
			}
		})
	}
}

// TestNativeBatch: --check, --dry-run, a batch, stats and a second run work on agent files as on
// generic ones (no agent needed).
func TestNativeBatch(t *testing.T) {
	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	os.MkdirAll(arch, 0o755)
	for _, f := range []string{"claude-long-tools.jsonl", "codex-long-tools.jsonl", "pi-long-tools.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../testdata/fixtures", f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(arch, f)
		os.WriteFile(p, b, 0o644)
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	if code, _, errOut := runCLI(t, dir, "compact", "--check", "--threshold", "2000", "--target", "500", arch); code != 1 {
		t.Fatalf("--check before: exit %d (%s), want 1", code, errOut)
	}
	code, out, _ := runCLI(t, dir, "compact", "--dry-run", "--json", "--threshold", "2000", "--target", "500", arch)
	if code != 0 || strings.Count(out, `"status":"planned"`) != 3 || strings.Count(out, `"compact":true`) != 3 {
		t.Fatalf("--dry-run: exit %d: %s", code, out)
	}
	code, out, errOut := runCLI(t, dir, "compact", "--json", "--provider", "extractive", "--threshold", "2000", "--target", "500", "-j", "2", arch)
	if code != 0 || strings.Count(out, `"status":"compacted"`) != 3 {
		t.Fatalf("batch: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, dir, "compact", "--check", "--threshold", "2000", "--target", "500", arch); code != 0 {
		t.Fatalf("--check after: exit %d (%s), want 0", code, errOut)
	}
	code, out, _ = runCLI(t, dir, "stats", "--json", arch)
	if code != 0 || strings.Count(out, `"compactions":1`) != 3 {
		t.Fatalf("stats after: %s", out)
	}
	snapshot := func() string {
		var b strings.Builder
		for _, f := range []string{"claude-long-tools.jsonl", "codex-long-tools.jsonl", "pi-long-tools.jsonl"} {
			d, _ := os.ReadFile(filepath.Join(arch, f))
			b.Write(d)
		}
		return b.String()
	}
	before := snapshot()
	code, out, _ = runCLI(t, dir, "compact", "--json", "--provider", "extractive", "--threshold", "2000", "--target", "500", arch)
	if code != 0 || strings.Count(out, `"status":"skipped"`) != 3 || snapshot() != before {
		t.Fatalf("second run: exit %d, wrote something: %s", code, out)
	}
}

// TestAgentResumesEmergency: a session whose last turn read a 33,000-token log, compacted under
// a 20,000-token threshold by the emergency level (tail shrunk, the log cut to its ends), in
// place and with -o: the real agent resumes it, with the cut note in the context, and `ctxc
// load` agrees.
func TestAgentResumesEmergency(t *testing.T) {
	resume := agentTools(t)
	sessions := testsessions.Agent()
	for _, agent := range []string{agentcheck.ClaudeCode, agentcheck.Codex, agentcheck.Pi} {
		for _, mode := range []string{"in-place", "new-session"} {
			t.Run(agent+"/"+mode, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				p := filepath.Join(dir, "9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b.jsonl")
				content := testsessions.HugeLastTurn(agent, sessions[agent])
				os.WriteFile(p, []byte(content), 0o644)
				old := time.Now().Add(-time.Hour)
				os.Chtimes(p, old, old)
				args := []string{"compact", "--json", "--provider", "extractive", "--threshold", "20000"}
				target := p
				if mode == "new-session" {
					target = filepath.Join(dir, "new.jsonl")
					args = append(args, "-o", target)
				}
				code, out, errOut := runCLI(t, dir, append(args, p)...)
				if code != 0 || !strings.Contains(out, `"status":"compacted"`) || !strings.Contains(out, `"tier":"emergency"`) {
					t.Fatalf("compact: exit %d: %s %s", code, out, errOut)
				}
				var got []agentcheck.Turn
				withAgentSlot(func() { got = agentTurns(t, resume, agent, target) })
				want := loadAs(t, agent, target)
				if diff := agentcheck.Compare(agent, want, got); diff != "" {
					t.Errorf("ctxc load disagrees with %s after an emergency compaction:\n%s", agent, diff)
				}
				if summaryTurn(got) < 0 {
					t.Errorf("%s does not send ctxc's summary", agent)
				}
				_, loaded, _ := runCLI(t, dir, "load", target)
				if !strings.Contains(loaded, "characters cut here by an emergency compaction") {
					t.Error("the cut log is not in the context")
				}
				_, stats, _ := runCLI(t, dir, "stats", "--json", target)
				var st struct {
					Effective int `json:"effective_tokens"`
				}
				json.Unmarshal([]byte(strings.Split(stats, "\n")[0]), &st)
				if st.Effective == 0 || st.Effective >= 20000 {
					t.Errorf("effective context %d tokens, threshold 20000", st.Effective)
				}
			})
		}
	}
}

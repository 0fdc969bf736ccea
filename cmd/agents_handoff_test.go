package cmd

import (
	"bytes"
	"encoding/json"
	"github.com/ctxc/ctxc/internal/agent/pi"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/transcript"
)

// handedText is what a handed-off session must carry to the target, in order: the text of the
// user's messages and the text of the tool results. Ids differ (they are fresh), roles of
// system text differ by target, and the target's own injected reminders are left out of both.
func handedText(turns []agentcheck.Turn) []string {
	var out []string
	for _, t := range turns {
		for _, p := range t.Parts {
			switch {
			case strings.HasPrefix(p, "output:"):
				out = append(out, p)
			case t.Role == "user" && strings.HasPrefix(p, "text:") && !strings.HasPrefix(p, "text:<system-reminder>"):
				out = append(out, p)
			}
		}
	}
	return out
}

// handedGroups is handedText of the source's turns in groups that must come in order: a user
// text alone, and the results of one assistant message's calls together, in any order (a target
// sends the results of parallel calls in the order of the calls, the source may hold them in the
// order they came back).
func handedGroups(turns []agentcheck.Turn) [][]string {
	var out [][]string
	open := false // the last group is results still taking the results after it
	for _, t := range turns {
		if t.Role != "tool" {
			open = false
		}
		for _, p := range handedText([]agentcheck.Turn{t}) {
			isOutput := strings.HasPrefix(p, "output:")
			if isOutput && open {
				out[len(out)-1] = append(out[len(out)-1], p)
				continue
			}
			out = append(out, []string{p})
			open = isOutput && t.Role == "tool"
		}
	}
	return out
}

// missingFrom returns the first of want that got does not hold in order after the groups before
// it ("" when got holds them all, in order).
func missingFrom(want [][]string, got []string) string {
	j := 0
	for _, group := range want {
		used := map[int]bool{}
		end := j
		for _, w := range group {
			k := slices.IndexFunc(got[j:], func(g string) bool { return sameHanded(w, g) })
			for k >= 0 && used[j+k] {
				next := slices.IndexFunc(got[j+k+1:], func(g string) bool { return sameHanded(w, g) })
				if next < 0 {
					k = -1
					break
				}
				k += next + 1
			}
			if k < 0 {
				return w
			}
			used[j+k] = true
			end = max(end, j+k+1)
		}
		j = end
	}
	return ""
}

// codexCut is how Codex shortens a long tool output when it sends it: its middle replaced by
// "…N chars truncated…" (its own rule; the session file holds the output whole).
var codexCut = regexp.MustCompile(`…\d+ chars truncated…`)

// sameHanded: got is want, or want with its middle cut as Codex cuts it.
func sameHanded(want, got string) bool {
	if want == got {
		return true
	}
	// An empty result in a new pi session says it has no output.
	if want == "output:" && got == "output:"+pi.EmptyResult {
		return true
	}
	// A result whose images were left out says so after its text.
	if strings.HasPrefix(got, "output:") && strings.HasSuffix(got, transcript.ImagesLeftOutNote) &&
		strings.TrimSpace(strings.TrimSuffix(got, transcript.ImagesLeftOutNote)) == want {
		return true
	}
	loc := codexCut.FindStringIndex(got)
	if loc == nil || !strings.HasPrefix(want, "output:") {
		return false
	}
	head, tail := got[:loc[0]], got[loc[1]:]
	return len(got) < len(want) && strings.HasPrefix(want, head) && strings.HasSuffix(want, tail)
}

// handoffSources are the sessions handed off in the matrix: the samples and fixtures of Claude
// Code, Codex and pi, and the fixtures Gemini CLI, Qwen Code and Copilot CLI wrote.
func handoffSources(t *testing.T) map[string][]string {
	files := agentFiles(t)
	for agent, pattern := range map[string]string{
		agentcheck.Gemini:  "../testdata/fixtures/gemini-*.jsonl",
		agentcheck.Qwen:    "../testdata/fixtures/qwen-*.jsonl",
		agentcheck.Copilot: "../testdata/fixtures/copilot-*.jsonl",
	} {
		ms, _ := filepath.Glob(pattern)
		files[agent] = append(files[agent], ms...)
	}
	return files
}

// handoffTargets are the agents a session is handed to, each resuming a session file in its own
// way: a function giving the request it sends. A target not installed skips the test (which CI
// counts as a failure).
func handoffTargets(t *testing.T) map[string]func(t *testing.T, path string) []agentcheck.Turn {
	resume := agentTools(t)
	moreAgentsInstalled(t)
	byResumeSh := func(agent string) func(*testing.T, string) []agentcheck.Turn {
		return func(t *testing.T, path string) []agentcheck.Turn { return agentTurns(t, resume, agent, path) }
	}
	more := func(agent string) func(*testing.T, string) []agentcheck.Turn {
		return func(t *testing.T, path string) []agentcheck.Turn {
			h := moreAgent(t, agent)
			return requestTurns(t, agent, func() ([]byte, error) { return h.ResumeRequest(path) })
		}
	}
	return map[string]func(*testing.T, string) []agentcheck.Turn{
		agentcheck.ClaudeCode: byResumeSh(agentcheck.ClaudeCode),
		agentcheck.Codex:      byResumeSh(agentcheck.Codex),
		agentcheck.Pi:         byResumeSh(agentcheck.Pi),
		agentcheck.Gemini:     more(agentcheck.Gemini),
		agentcheck.Qwen:       more(agentcheck.Qwen),
		agentcheck.Copilot: func(t *testing.T, path string) []agentcheck.Turn {
			bin, ok := agentcheck.MoreAgent("copilot")
			if !ok {
				agentcheck.Skip(t, "copilot not installed (eval \"$(scripts/install-agents.sh)\")")
			}
			h, err := agentcheck.NewCopilotHome(bin, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			return requestTurns(t, agentcheck.Copilot, func() ([]byte, error) { return h.CopilotResumeRequest(path) })
		},
	}
}

// moreAgentsInstalled skips the whole test (which CI counts as a failure) unless Gemini CLI, Qwen
// Code and Copilot CLI are installed.
func moreAgentsInstalled(t *testing.T) {
	t.Helper()
	for _, cmd := range []string{"gemini", "qwen", "copilot"} {
		if _, ok := agentcheck.MoreBin(cmd); !ok {
			agentcheck.Skip(t, cmd+" not installed (eval \"$(scripts/install-agents.sh)\")")
		}
	}
}

// requestTurns reduces the request send gets from the agent.
func requestTurns(t *testing.T, agent string, send func() ([]byte, error)) []agentcheck.Turn {
	t.Helper()
	body, err := send()
	if err != nil {
		t.Fatal(err)
	}
	turns, err := agentcheck.FromRequest(agent, body)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

// TestAgentHandoffResumes: every agent sample and fixture of Claude Code, Codex, pi, Gemini CLI,
// Qwen Code and Copilot CLI, handed off to each of the other five, is resumed by the real target
// agent, whose next request holds the source's user messages and tool results' text in the order
// `ctxc load` gives them.
func TestAgentHandoffResumes(t *testing.T) {
	targets := handoffTargets(t)
	var mu sync.Mutex
	for agent, paths := range handoffSources(t) {
		for _, p := range paths {
			for to, resume := range targets {
				if to == agent {
					continue
				}
				t.Run(agent+"/"+filepath.Base(p)+"/to-"+to, func(t *testing.T) {
					t.Parallel()
					want := handedGroups(loadAs(t, agentcheck.Pi, p))
					if to == agentcheck.Gemini {
						want = withoutGeminiCommands(want)
					}
					if len(want) == 0 {
						t.Skip("no user message or tool result to hand off")
					}
					window := []string{"--window", "100000000"}
					over := overWindow(t, p, to)
					if over {
						// Handed over whole, a history over the target's window is cut by the target
						// itself (Copilot CLI leaves out its oldest turns): at the target's window it
						// is compacted on the way, and the target sends its last user message, in
						// the summary or after it.
						window, want = nil, lastUserText(want)
					}
					dir := t.TempDir()
					out := filepath.Join(dir, "handed.jsonl")
					code, _, errOut := runCLI(t, dir, append([]string{"handoff", "-q", "--provider", "extractive", "--to", to, "-o", out, p}, window...)...)
					if code != 0 {
						t.Fatalf("ctxc handoff --to %s %s: exit %d: %s", to, p, code, errOut)
					}
					var got []agentcheck.Turn
					withAgentSlot(func() { got = resume(t, out) })
					sent := handedText(got)
					if over && len(want) == 1 && strings.Contains(strings.Join(sent, "\n"), strings.TrimPrefix(want[0][0], "text:")) {
						return
					}
					if miss := missingFrom(want, sent); miss != "" {
						mu.Lock()
						defer mu.Unlock()
						t.Errorf("%s handed to %s: the agent's request lacks (in order) %q", p, to, clip(miss))
					}
				})
			}
		}
	}
}

// withoutGeminiCommands leaves out the user texts Gemini CLI takes for its commands on resume
// (a text starting with "/" or "?"): written, and said on stderr, but not sent by Gemini CLI.
func withoutGeminiCommands(groups [][]string) [][]string {
	var out [][]string
	for _, g := range groups {
		if text, ok := strings.CutPrefix(g[0], "text:"); ok && (strings.HasPrefix(strings.TrimSpace(text), "/") || strings.HasPrefix(strings.TrimSpace(text), "?")) {
			continue
		}
		out = append(out, g)
	}
	return out
}

// overWindow: the effective context of path is over the compaction threshold of agent to's
// default window.
func overWindow(t *testing.T, path, to string) bool {
	t.Helper()
	_, msgs, err := transcript.LoadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range msgs {
		n += msgs[i].Tokens()
	}
	co := compact.Options{Window: transcript.Format(to).Agent().Handoff.Window}
	return n > co.EffectiveThreshold()
}

// lastUserText is the last user text of groups, alone.
func lastUserText(groups [][]string) [][]string {
	for i := len(groups) - 1; i >= 0; i-- {
		if strings.HasPrefix(groups[i][0], "text:") {
			return groups[i : i+1]
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// TestAgentHandoffForkResumes: a fork before the first compaction of a Claude Code, Codex, pi,
// Gemini CLI, Qwen Code and Copilot CLI fixture is resumed by the agent itself, which sends the
// context `ctxc load` gives of the fork, holding the messages that compaction replaced (`ctxc
// expand --marker 1`) in order.
func TestAgentHandoffForkResumes(t *testing.T) {
	targets := handoffTargets(t)
	for agent, file := range map[string]string{
		agentcheck.ClaudeCode: "../testdata/fixtures/claude-compact-boundary.jsonl",
		agentcheck.Codex:      "../testdata/fixtures/codex-replacement-history.jsonl",
		agentcheck.Pi:         "../testdata/fixtures/pi-v1-two-compactions.jsonl",
		agentcheck.Gemini:     "../testdata/fixtures/gemini-compressed.jsonl",
		agentcheck.Qwen:       "../testdata/fixtures/qwen-0.24-own-compression.jsonl",
		agentcheck.Copilot:    "../testdata/fixtures/copilot-compacted.jsonl",
	} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "fork.jsonl")
			code, _, errOut := runCLI(t, dir, "fork", "-q", "--before-compaction", "1", "-o", out, file)
			if code != 0 {
				t.Fatalf("ctxc fork %s: exit %d: %s", file, code, errOut)
			}
			var got []agentcheck.Turn
			withAgentSlot(func() { got = targets[agent](t, out) })
			if diff := agentcheck.Compare(agent, loadAs(t, agent, out), got); diff != "" {
				t.Errorf("%s: ctxc load of the fork disagrees with %s:\n%s", file, agent, diff)
			}
			code, replaced, errOut := runCLI(t, dir, "expand", "-q", "--as", "openai", "--marker", "1", file)
			if code != 0 {
				t.Fatalf("ctxc expand %s: exit %d: %s", file, code, errOut)
			}
			want, err := agentcheck.FromLoad(agentcheck.Pi, []byte(replaced))
			if err != nil {
				t.Fatal(err)
			}
			if miss := missingFrom(handedGroups(want), handedText(got)); miss != "" {
				t.Errorf("%s: the fork's request lacks (in order) what compaction 1 replaced: %q", file, clip(miss))
			}
		})
	}
}

// TestAgentHandoffPlaced: a session handed to Gemini CLI, Qwen Code and Copilot CLI without -o
// lands where the agent finds it (its home, the project's folder, Gemini CLI's project registry,
// or, for a project Gemini CLI never ran in, the folder it moves to the project's name), and the
// agent resumes it by the id of the printed command, in the project the command goes to.
func TestAgentHandoffPlaced(t *testing.T) {
	moreAgentsInstalled(t)
	src := "../testdata/fixtures/pi-long-tools.jsonl"
	resumed := func(t *testing.T, home, proj, to string) string {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		cwd, _ := json.Marshal(proj)
		session := filepath.Join(t.TempDir(), "pi.jsonl")
		if err := os.WriteFile(session, bytes.Replace(data, []byte(`"cwd":"/w"`), []byte(`"cwd":`+string(cwd)), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLIEnv(t, home, nil, "handoff", "-q", "--to", to, session)
		if code != 0 {
			t.Fatalf("ctxc handoff --to %s: exit %d: %s", to, code, errOut)
		}
		cmd := strings.TrimSpace(out)
		if !strings.HasPrefix(cmd, "cd "+proj+" && ") {
			t.Fatalf("resume command %q does not go to the project %s", cmd, proj)
		}
		fields := strings.Fields(cmd)
		id := fields[len(fields)-1]
		_, id, _ = strings.Cut(id, "=")
		if id == "" {
			id = fields[len(fields)-1]
		}
		return id
	}
	want := handedGroups(loadAs(t, agentcheck.Pi, src))
	check := func(t *testing.T, agent string, body []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		got, err := agentcheck.FromRequest(agent, body)
		if err != nil {
			t.Fatal(err)
		}
		if miss := missingFrom(want, handedText(got)); miss != "" {
			t.Errorf("%s resumed the placed session without (in order) %q", agent, clip(miss))
		}
	}
	for _, tc := range []struct {
		name, agent  string
		unregistered bool
	}{
		{"gemini-cli", agentcheck.Gemini, false},
		{"gemini-cli-new-project", agentcheck.Gemini, true},
		{"qwen-code", agentcheck.Qwen, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := moreAgent(t, tc.agent)
			if tc.unregistered {
				if err := os.Remove(filepath.Join(h.Home, ".gemini", "projects.json")); err != nil {
					t.Fatal(err)
				}
			}
			id := resumed(t, h.Home, h.Proj, tc.agent)
			var body []byte
			var err error
			withAgentSlot(func() { body, err = h.ResumeByID(id) })
			check(t, tc.agent, body, err)
		})
	}
	t.Run("copilot", func(t *testing.T) {
		bin, ok := agentcheck.MoreAgent("copilot")
		if !ok {
			agentcheck.Skip(t, "copilot not installed (eval \"$(scripts/install-agents.sh)\")")
		}
		h, err := agentcheck.NewCopilotHome(bin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		id := resumed(t, h.Home, h.Proj, agentcheck.Copilot)
		withAgentSlot(func() { err = h.CopilotPrompt(id, agentcheck.Prompt) })
		check(t, agentcheck.Copilot, h.Fake.Last(), err)
	})
}

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Gemini CLI and Qwen Code as judges (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): each
// runs offline against agentcheck's fake endpoint, writes a real session (a tool call, then two
// resumed turns), and resumes it; its request is the context it rebuilt.

// moreAgent prepares a home for agent, skipping when the agent is not installed.
func moreAgent(t *testing.T, agent string) *agentcheck.AgentHome {
	t.Helper()
	cmd, mk := "gemini", agentcheck.NewGeminiHome
	switch agent {
	case agentcheck.Qwen:
		cmd, mk = "qwen", agentcheck.NewQwenHome
	case agentcheck.Continue:
		cmd, mk = "cn", agentcheck.NewContinueHome
	}
	if _, ok := agentcheck.MoreBin(cmd); !ok {
		agentcheck.Skip(t, cmd+" not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	h, err := mk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

// agentSession has the agent write a session: a prompt answered with a tool call, then two
// turns resumed by id; pad is added to each prompt. It returns the session file.
func agentSession(t *testing.T, h *agentcheck.AgentHome, pad string) string {
	t.Helper()
	if err := h.Prompt("", "Look at the project "+agentcheck.ToolWord+pad); err != nil {
		t.Fatal(err)
	}
	files := h.Sessions()
	if len(files) != 1 {
		t.Fatalf("%s wrote %d session files, want 1: %v", h.Agent, len(files), files)
	}
	id, err := agentcheck.SessionID(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"Second question", "Third question"} {
		if err := h.Prompt(id, p+pad); err != nil {
			t.Fatal(err)
		}
	}
	return files[0]
}

type statsJSON struct {
	Format   string `json:"format"`
	Messages struct {
		User, Assistant, Tool int
	} `json:"messages"`
	ToolCalls   int `json:"tool_calls"`
	ToolResults int `json:"tool_results"`
	Compactions int `json:"compactions"`
	EffMessages int `json:"effective_messages"`
	Usage       *struct {
		Responses int `json:"responses"`
	} `json:"recorded_usage"`
}

func statsOf(t *testing.T, path string) statsJSON {
	t.Helper()
	code, out, errOut := runCLI(t, t.TempDir(), "stats", "--json", path)
	if code != 0 {
		t.Fatalf("ctxc stats %s: exit %d: %s", path, code, errOut)
	}
	var st statsJSON
	first, _, _ := strings.Cut(out, "\n")
	if err := json.Unmarshal([]byte(first), &st); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return st
}

// agreesOnResume resumes a copy of path in the agent, in a fresh home, and compares its request
// with `ctxc load` of path.
func agreesOnResume(t *testing.T, agent string, path string) []agentcheck.Turn {
	t.Helper()
	h := moreAgent(t, agent)
	body, err := h.ResumeRequest(path)
	if err != nil {
		t.Fatal(err)
	}
	return requestAgrees(t, h.Agent, path, loadAs(t, h.Agent, path), body)
}

// resumeAgrees reads `ctxc load` of the session name, then has the agent resume it (resume
// returns the request it sent), and checks that the request is that context, text for text; it
// returns the agent's context.
func resumeAgrees(t *testing.T, h *agentcheck.AgentHome, name string, resume func() ([]byte, error)) []agentcheck.Turn {
	t.Helper()
	want := loadAs(t, h.Agent, name)
	body, err := resume()
	if err != nil {
		t.Fatal(err)
	}
	return requestAgrees(t, h.Agent, name, want, body)
}

// requestAgrees checks that the context of agent's request body is want, ctxc's load of the
// session name, and not empty; it returns the agent's context.
func requestAgrees(t *testing.T, agent, name string, want []agentcheck.Turn, body []byte) []agentcheck.Turn {
	t.Helper()
	got, err := agentcheck.FromRequest(agent, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := agentcheck.Compare(agent, want, got); diff != "" {
		t.Errorf("ctxc load of %s disagrees with %s (%d agent turns, %d ctxc turns):\n%s", name, agent, len(got), len(want), diff)
	}
	if len(got) == 0 {
		t.Errorf("%s resumed an empty context", agent)
	}
	return got
}

func TestAgentGeminiSession(t *testing.T) {
	h := moreAgent(t, agentcheck.Gemini)
	path := agentSession(t, h, "")
	st := statsOf(t, path)
	t.Logf("%+v", st)
	// Three prompts; the model's call, its "Done." and two "OK"; the call's result is held by the
	// user message of results and by the copy the $set of a resume writes of the call's record
	// ("<id>_response"), and also by the call's record when that copy keeps its toolCalls
	// (Gemini CLI sends it as many times).
	if st.Format != "gemini-cli" || st.Messages.User != 3 || st.Messages.Assistant != 4 || st.ToolCalls != 1 ||
		st.Messages.Tool < 2 || st.Messages.Tool > 3 || st.EffMessages != 7+st.Messages.Tool || st.Usage == nil || st.Usage.Responses != 4 {
		t.Errorf("stats of the session Gemini CLI wrote: %+v", st)
	}
	agreesOnResume(t, h.Agent, path)
	if os.Getenv("CTXC_KEEP_AGENT_SESSIONS") != "" {
		copyTo(t, path, filepath.Join(os.Getenv("CTXC_KEEP_AGENT_SESSIONS"), "gemini-"+filepath.Base(path)))
	}
}

func TestAgentQwenSession(t *testing.T) {
	h := moreAgent(t, agentcheck.Qwen)
	path := agentSession(t, h, "")
	st := statsOf(t, path)
	t.Logf("%+v", st)
	if st.Format != "qwen-code" || st.Messages.User != 3 || st.Messages.Assistant != 4 || st.ToolCalls != 1 ||
		st.Messages.Tool != 1 || st.EffMessages != 8 || st.Usage == nil || st.Usage.Responses != 4 {
		t.Errorf("stats of the session Qwen Code wrote: %+v", st)
	}
	agreesOnResume(t, h.Agent, path)
	if os.Getenv("CTXC_KEEP_AGENT_SESSIONS") != "" {
		copyTo(t, path, filepath.Join(os.Getenv("CTXC_KEEP_AGENT_SESSIONS"), "qwen-"+filepath.Base(path)))
	}
}

func copyTo(t *testing.T, src, dst string) {
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentCompaction: ctxc compacts a session the agent wrote (its prompts padded so that there is
// a middle to summarize), in place and into a new session (-o); the agent resumes the summary
// and the tail, fewer turns than before, and `ctxc load` agrees with it.
func agentCompaction(t *testing.T, agent string) {
	h := moreAgent(t, agent)
	pad := "\n\nNotes for this step: " + strings.Repeat("the build must stay green; ", 60)
	path := agentSession(t, h, pad)
	full := agreesOnResume(t, agent, path)
	for _, mode := range []string{"in-place", "new-session"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var extra []string
			if mode == "new-session" {
				extra = []string{"-o", filepath.Join(dir, "new.jsonl")}
			}
			before, _ := os.ReadFile(path)
			cp, res, ok := compactCopy(t, dir, path, extra...)
			if !ok {
				t.Fatalf("not compacted: %v", res)
			}
			target := cp
			if mode == "new-session" {
				target = filepath.Join(dir, "new.jsonl")
			} else if got, _ := os.ReadFile(cp); !strings.HasPrefix(string(got), string(before)) {
				t.Error("the bytes before the append changed")
			}
			if st := statsOf(t, target); st.Compactions != 1 {
				t.Errorf("stats after compaction: %+v", st)
			}
			got := agreesOnResume(t, agent, target)
			if summaryTurn(got) < 0 {
				t.Errorf("%s does not send ctxc's summary: %v", agent, got)
			}
			if len(got) >= len(full) {
				t.Errorf("%s resumes %d turns after compaction, %d before", agent, len(got), len(full))
			}
		})
	}
}

func TestAgentGeminiCompaction(t *testing.T) { agentCompaction(t, agentcheck.Gemini) }

func TestAgentQwenCompaction(t *testing.T) { agentCompaction(t, agentcheck.Qwen) }

// agentOwnCompaction: the agent, told by the fake that its context is nearly full, compacts on
// its own; ctxc reads that compaction (stats count it, the summary leads the context) and loads
// what the agent resumes. Once it has answered the compression request the fake reports a small
// context (a resume that starts from a full one compacts again before it sends anything).
func agentOwnCompaction(t *testing.T, agent string) {
	h := moreAgent(t, agent)
	h.Fake.SetInputTokens(900_000)
	path := agentSession(t, h, "")
	st := statsOf(t, path)
	if st.Compactions < 1 {
		t.Fatalf("%s did not compact (or ctxc did not see it): %+v", agent, st)
	}
	want := loadAs(t, agent, path)
	if len(want) == 0 || !strings.Contains(want[0].String(), "state_snapshot") {
		t.Errorf("the context does not start with %s's summary: %v", agent, want)
	}
	agreesOnResume(t, agent, path)
	if os.Getenv("CTXC_KEEP_AGENT_SESSIONS") != "" {
		copyTo(t, path, filepath.Join(os.Getenv("CTXC_KEEP_AGENT_SESSIONS"), "own-"+agent+"-"+filepath.Base(path)))
	}
}

func TestAgentQwenOwnCompaction(t *testing.T) { agentOwnCompaction(t, agentcheck.Qwen) }

// moreAgentHome prepares a home for an agent scripts/install-agents.sh installs (its command
// bin), made by newHome in a temporary folder and stopped at the test's end; the test skips,
// saying why (skip), when the agent is not installed.
func moreAgentHome(t *testing.T, bin, skip string, newHome func(dir string) (*agentcheck.AgentHome, error)) *agentcheck.AgentHome {
	t.Helper()
	if _, ok := agentcheck.MoreBin(bin); !ok {
		agentcheck.Skip(t, skip)
	}
	h, err := newHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	return h
}

package agentcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// Continue is Continue CLI (npm @continuedev/cli, command cn). It is pointed at the fake by a
// config file (--config) naming an "openai" model whose apiBase is the fake; --auto lets it run
// its tools without asking.
const Continue = agent.ContinueCLI

// ContinueTool is the tool the fake asks Continue CLI to call.
const ContinueTool = "Read"

// ContinueSummaryCue opens Continue CLI's compaction prompt (its /compact).
const ContinueSummaryCue = "Please provide a concise summary of our conversation so far"

// CompactingTurn resumes the newest session on prompt with a model whose window the session
// overflows: Continue CLI compacts the history on its own before it adds the prompt, and saves
// the compacted session. (Its /compact in a run with -p compacts the history but does not save
// it, in Continue CLI 1.5.47.) Continue CLI compacts a context of more than X - B tokens, X being
// what the window leaves beside the answer's maximum M and B = min(max(M, X/5), 15,000), and
// prunes its compaction request (the compaction prompt first) when it does not fit in X. With
// T the context's tokens estimated from the last request (about 4 bytes a token), M = T and
// X = 1.5T: it compacts, without pruning, a context of 1.5T - min(T, 15,000) to 1.5T tokens.
// The history must be most of the context (long prompts): what the compaction leaves, the
// system prompt and the tools' schemas, must be under that threshold, or it compacts again
// and again.
func (h *AgentHome) CompactingTurn(prompt string) error {
	reqs := h.Fake.Requests("/chat/completions")
	if len(reqs) == 0 {
		return fmt.Errorf("no request to size the window from")
	}
	t := len(reqs[len(reqs)-1].Body) / 4
	small := strings.Replace(h.continueConfigText(), "    roles: [chat]\n",
		fmt.Sprintf("    roles: [chat]\n    defaultCompletionOptions:\n      contextLength: %d\n      maxTokens: %d\n", t*5/2, t), 1)
	path := filepath.Join(h.dir, "continue-config-small.yaml")
	if err := os.WriteFile(path, []byte(small), 0o644); err != nil {
		return err
	}
	return h.run("-p", prompt, "--config", path, "--auto", "--resume")
}

// NewContinueHome prepares a home for Continue CLI under dir.
func NewContinueHome(dir string) (*AgentHome, error) {
	h, err := newHome(Continue, "cn", dir, ContinueTool, map[string]any{"filepath": "$NOTES"}, func(string) []string {
		return []string{"CONTINUE_CLI_ENABLE_TELEMETRY=0", "CONTINUE_METRICS_ENABLED=0"}
	})
	if err != nil {
		return nil, err
	}
	return h, os.WriteFile(h.continueConfig(), []byte(h.continueConfigText()), 0o644)
}

// continueConfigText is the config that points Continue CLI at the fake.
func (h *AgentHome) continueConfigText() string {
	return fmt.Sprintf(`name: fake
version: 0.0.1
schema: v1
models:
  - name: fake
    provider: openai
    model: fake-model
    apiBase: %s/v1
    apiKey: fake-key
    roles: [chat]
`, h.Fake.URL)
}

func (h *AgentHome) continueConfig() string { return filepath.Join(h.dir, "continue-config.yaml") }

// continueSessions is where Continue CLI keeps its sessions.
func (h *AgentHome) continueSessions() string { return filepath.Join(h.Home, ".continue", "sessions") }

// continueArgs are the arguments of a run on prompt: the session resumed is the newest one
// (--resume), or a new one started from session fork's history (--fork).
func (h *AgentHome) continueArgs(prompt string, resume bool, fork string) []string {
	args := []string{"-p", prompt, "--config", h.continueConfig(), "--auto"}
	if resume {
		args = append(args, "--resume")
	}
	if fork != "" {
		args = append(args, "--fork", fork)
	}
	return args
}

// continueEndsWithPrompt: Continue CLI sends Chat Completions, as Qwen Code does.
func continueEndsWithPrompt(body []byte) bool { return qwenEndsWithPrompt(body) }

// continueSessionFiles lists the session files in dir: its *.json but sessions.json (the list
// of sessions).
func continueSessionFiles(dir string) []string {
	ms, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := ms[:0]
	for _, m := range ms {
		if !strings.HasSuffix(m, string(filepath.Separator)+"sessions.json") {
			out = append(out, m)
		}
	}
	return out
}

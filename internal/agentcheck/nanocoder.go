package agentcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// Nanocoder is Nanocoder (npm @nanocollective/nanocoder): its provider "fake", an
// OpenAI-compatible endpoint, is the fake, configured in its agents.config.json
// (NANOCODER_CONFIG_DIR); its sessions are in $XDG_DATA_HOME/nanocoder/sessions. Its TUI and its
// Agent Client Protocol mode, `nanocoder --acp`, save and resume a session the same way (the
// whole conversation as the session's "messages"; on resume, those messages after its system
// prompt): NanocoderACP drives the latter, headless: session/new or session/load, then
// session/prompt.
const Nanocoder = agent.Nanocoder

// NanocoderTool is the tool the fake asks Nanocoder to call.
const NanocoderTool = "read_file"

// NanocoderSummaryCue begins Nanocoder's request for a summary when it compacts a session.
const NanocoderSummaryCue = "Summarise the following conversation segment."

// NanocoderPad is a prompt's padding that makes the message it summarizes longer than its
// summary (else Nanocoder keeps the messages as they are).
var NanocoderPad = strings.Repeat("the build must stay green; ", 200)

// NewNanocoderHome prepares a home for Nanocoder under dir.
func NewNanocoderHome(dir string) (*AgentHome, error) {
	h, err := newHome(Nanocoder, "nanocoder", dir, NanocoderTool, map[string]any{"path": "notes.txt"}, nil)
	if err != nil {
		return nil, err
	}
	// (It needs Node >= 22: the pinned node@ beside it, first on PATH.)
	bin, _ := MoreBin("nanocoder")
	h.env = func(string) []string {
		return append(xdgEnv(h.Home), "NANOCODER_CONFIG_DIR="+filepath.Join(h.Home, ".config", "nanocoder"),
			"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return h, h.writeNanocoderConfig()
}

// writeNanocoderConfig points Nanocoder's provider "fake" at the fake.
func (h *AgentHome) writeNanocoderConfig() error {
	cfg := map[string]any{"nanocoder": map[string]any{
		"providers": []any{map[string]any{"name": "fake", "baseUrl": h.Fake.URL + "/v1", "apiKey": "fake-key",
			"models": []string{"fake-model"}}},
	}}
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	p := filepath.Join(h.Home, ".config", "nanocoder", "agents.config.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

// NanocoderSessionsDir is the folder of Nanocoder's sessions in the agent's home.
func (h *AgentHome) NanocoderSessionsDir() string {
	return filepath.Join(h.Home, ".local", "share", "nanocoder", "sessions")
}

// NanocoderSessions are the files of Nanocoder's sessions, by name.
func (h *AgentHome) NanocoderSessions() []string {
	matches, _ := filepath.Glob(filepath.Join(h.NanocoderSessionsDir(), "*-*-*-*-*.json"))
	sort.Strings(matches)
	return matches
}

// NanocoderNew runs a new session on prompt and returns its id.
func (h *AgentHome) NanocoderNew(prompt string) (string, error) {
	var id string
	err := h.nanocoderACP(func(c *acpConn) error {
		if err := c.call("session/new", map[string]any{"cwd": h.Proj, "mcpServers": []any{}}); err != nil {
			return err
		}
		id = c.result.Get("sessionId").Str
		return c.call("session/prompt", map[string]any{"sessionId": id, "prompt": acpText(prompt)})
	})
	return id, err
}

// NanocoderPrompt resumes session id (session/load) with prompt.
func (h *AgentHome) NanocoderPrompt(id, prompt string) error {
	return h.nanocoderACP(func(c *acpConn) error {
		if err := c.call("session/load", map[string]any{"sessionId": id, "cwd": h.Proj, "mcpServers": []any{}}); err != nil {
			return err
		}
		return c.call("session/prompt", map[string]any{"sessionId": id, "prompt": acpText(prompt)})
	})
}

// NanocoderResume resumes session id with Prompt and returns the request of that turn.
func (h *AgentHome) NanocoderResume(id string) ([]byte, error) {
	if err := h.NanocoderPrompt(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), qwenEndsWithPrompt)
}

func acpText(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }

// nanocoderACP runs `nanocoder --acp` (3 minutes at most): initialize, then steps; a permission
// Nanocoder asks for is given (its first option).
func (h *AgentHome) nanocoderACP(steps func(*acpConn) error) error {
	return h.runACP([]string{"--acp", "--provider", "fake", "--model", "fake-model"}, nil, steps)
}

// NanocoderRun runs a new session on prompt in Nanocoder's own (Ink) runtime, headless
// (`nanocoder --no-plain run PROMPT`), which saves the session as its TUI does and compacts it
// past its auto-compact threshold; args go before `run` (--context-max N).
func (h *AgentHome) NanocoderRun(prompt string, args ...string) error {
	bin, _ := MoreBin(h.cmd)
	argv := append(append([]string{filepath.Join(bin, h.cmd), "--no-plain", "--trust-directory", "--provider", "fake", "--model", "fake-model"},
		args...), "run", prompt)
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// (Ink takes a terminal: script(1) gives it one; CI=false, or it renders nothing)
	return h.runCmd("script", "-qec", "stty cols 200; CI=false "+strings.Join(q, " "), "/dev/null")
}

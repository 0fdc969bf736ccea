package agentcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// Opencode is opencode (npm opencode-ai, its binary in opencode-linux-x64 and the other platform
// packages). It runs offline against the fake through a provider of its configuration
// (OPENCODE_CONFIG_CONTENT): the bundled @ai-sdk/openai-compatible pointed at the fake's /v1,
// with a small context window so that a large reported usage makes it compact; models.dev, the
// update check, sharing and the default plugins are turned off. Its store is
// $XDG_DATA_HOME/opencode/opencode.db, inside the agent's home.
const Opencode = agent.Opencode

// OpencodeTool is the tool the fake asks opencode to call.
const OpencodeTool = "read"

// OpencodeContext is the context window the fake model has in opencode's configuration: a usage
// reported over it makes opencode compact the session.
const OpencodeContext = 10000

// OpencodeSummaryCue is in the prompt of opencode's compaction request (its compaction agent
// asks for an anchored summary): the fake answers it with SnapshotReply.
const OpencodeSummaryCue = "Create a new anchored summary from the conversation history"

// NewOpencodeHome prepares a home for opencode under dir.
func NewOpencodeHome(dir string) (*AgentHome, error) {
	h, err := newHome(Opencode, "opencode", dir, OpencodeTool, map[string]any{"filePath": "$NOTES"}, nil)
	if err != nil {
		return nil, err
	}
	h.env = func(url string) []string {
		// (opencode takes its project folder from PWD: a session imported there, whose folder
		// is where import ran, is then run in the same folder)
		return append(opencodeEnv(h.Home), "PWD="+h.Proj, "OPENCODE_CONFIG_CONTENT="+opencodeConfig(url))
	}
	return h, nil
}

// opencodeEnv keeps opencode's files inside home and off the network but for the fake.
func opencodeEnv(home string) []string {
	return append(xdgEnv(home),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_CLAUDE_CODE=1")
}

// xdgEnv puts the XDG folders inside home.
func xdgEnv(home string) []string {
	return []string{
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
	}
}

// opencodeConfig is opencode's configuration: the fake as its only model, every tool allowed.
func opencodeConfig(url string) string {
	cfg := map[string]any{
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": url + "/v1", "apiKey": "fake-key"},
			"models": map[string]any{"fake-model": map[string]any{"name": "Fake",
				"limit": map[string]any{"context": OpencodeContext, "output": 1000}}},
		}},
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		"autoupdate": false, "share": "disabled", "permission": map[string]any{"*": "allow"},
	}
	b, _ := json.Marshal(cfg)
	return string(b)
}

// OpencodeStore is opencode's store in the agent's home (kilo's, for kilo).
func (h *AgentHome) OpencodeStore() string {
	if h.Agent == Kilo {
		return h.KiloStore()
	}
	return filepath.Join(h.Home, ".local", "share", "opencode", "opencode.db")
}

// OpencodeRun runs `opencode run` with a prompt, in the session id ("" for a new one). The
// prompt goes word by word: opencode quotes an argument that holds a space.
func (h *AgentHome) OpencodeRun(id, prompt string) error {
	args := []string{"run"}
	if id != "" {
		args = append(args, "--session", id)
	}
	return h.run(append(args, strings.Fields(prompt)...)...)
}

// OpencodeImport runs `opencode import FILE` (kilo's, for kilo) and returns what it printed.
func (h *AgentHome) OpencodeImport(file string) (string, error) {
	bin, _ := MoreBin(h.cmd)
	out, err := h.runOut(filepath.Join(bin, h.cmd), "import", file)
	return string(out), err
}

// OpencodeSnapshot copies the store (with its -wal and -shm files, opencode not running) into
// dir: what ctxc reads while opencode's next run changes the store.
func (h *AgentHome) OpencodeSnapshot(dir string) (string, error) {
	src := h.OpencodeStore()
	dst := filepath.Join(dir, filepath.Base(filepath.Dir(src)), filepath.Base(src))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(src + suffix); err != nil {
			if suffix == "" {
				return "", fmt.Errorf("%s wrote no store: %w", h.Agent, err)
			}
			continue
		}
		if err := copyFile(src+suffix, dst+suffix); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// OpencodeResumeRequest resumes session id with Prompt and returns the request of that turn.
func (h *AgentHome) OpencodeResumeRequest(id string) ([]byte, error) {
	if err := h.OpencodeRun(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), qwenEndsWithPrompt)
}

// opencodeRequestTurns reduces a Chat Completions request of opencode: its system prompt (the
// agent's prompt, environment and instructions) is left out, and the new prompt.
func opencodeRequestTurns(body []byte) ([]Turn, error) {
	ms, err := chatMessagesButSystem(body)
	if err != nil {
		return nil, err
	}
	return dropPrompt(chatTurns(ms)), nil
}

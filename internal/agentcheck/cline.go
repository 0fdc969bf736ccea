package agentcheck

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agent"
)

// Cline is the Cline CLI (npm cline, its Bun-built binary in @cline/cli-linux-x64 and the other
// platform packages). It runs offline against the fake as its "openai-compatible" provider,
// configured in ~/.cline/data/settings/providers.json, with its sessions in the local backend
// (CLINE_SESSION_BACKEND_MODE=local: no hub daemon). A new session is a headless run,
// `cline --json PROMPT`; Cline resumes a session only interactively (`--id ID` opens its TUI) or
// through its Agent Client Protocol mode, `cline --acp`, which ClineResume drives: session/load
// of the session, then session/prompt.
const Cline = agent.Cline

// ClineTool is the tool the fake asks Cline to call.
const ClineTool = "read_files"

// ClinePad is a prompt's padding that, with the usage the fake reports set high
// (SetInputTokens), makes Cline compact before its next request: it compacts a request of over
// 90% of the model's input budget, 128,000 tokens for a model it does not know divided by how
// much the last reported usage exceeds its estimate (at most 4), that is 28,800 estimated
// tokens; its system prompt and tools are some 7,400. (An argument holds at most 128 KiB.)
var ClinePad = strings.Repeat("the build must stay green; ", 3000)

// NewClineHome prepares a home for Cline under dir.
func NewClineHome(dir string) (*AgentHome, error) {
	h, err := newHome(Cline, "cline", dir, ClineTool, map[string]any{"path": "$NOTES"}, nil)
	if err != nil {
		return nil, err
	}
	h.env = func(string) []string {
		return []string{"CLINE_SESSION_BACKEND_MODE=local", "CLINE_NO_AUTO_UPDATE=1"}
	}
	return h, h.writeClineProvider()
}

// writeClineProvider points Cline's "openai-compatible" provider at the fake.
func (h *AgentHome) writeClineProvider() error {
	cfg := map[string]any{"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{
			"settings": map[string]any{"provider": "openai-compatible", "apiKey": "fake-key", "model": "fake-model",
				"baseUrl": h.Fake.URL + "/v1"},
			"updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}}
	b, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	p := filepath.Join(h.Home, ".cline", "data", "settings", "providers.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

// ClineRun runs a new session on prompt, headless, its tools approved; args go before it
// (--compaction basic).
func (h *AgentHome) ClineRun(prompt string, args ...string) error {
	return h.run(append(append([]string{"--json"}, args...), prompt)...)
}

// ClineSessions are the folders of Cline's sessions, oldest first.
func (h *AgentHome) ClineSessions() []string {
	dir := filepath.Join(h.Home, ".cline", "data", "sessions")
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out) // (its ids start with the time in milliseconds)
	return out
}

// ClineMessages is the messages file of session id.
func (h *AgentHome) ClineMessages(id string) string {
	return filepath.Join(h.Home, ".cline", "data", "sessions", id, id+".messages.json")
}

// ClineResume resumes session id with Prompt through `cline --acp` and returns the request of
// that turn.
func (h *AgentHome) ClineResume(id string) ([]byte, error) {
	if err := h.clineACP(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), qwenEndsWithPrompt)
}

// ClinePrompt continues session id with prompt through `cline --acp` (a turn of its own, which
// may call tools and compact).
func (h *AgentHome) ClinePrompt(id, prompt string) error { return h.clineACP(id, prompt) }

// clineACP runs `cline --acp` (3 minutes at most): initialize, session/load of id, session/prompt
// with prompt; a permission Cline asks for is given (its first option).
func (h *AgentHome) clineACP(id, prompt string) error {
	env := []string{"CLINE_PROVIDER=openai-compatible", "CLINE_API_KEY=fake-key", "CLINE_MODEL=fake-model"}
	return h.runACP([]string{"--acp"}, env, func(c *acpConn) error {
		if err := c.call("session/load", map[string]any{"sessionId": id, "cwd": h.Proj, "mcpServers": []any{}}); err != nil {
			return err
		}
		return c.call("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	})
}

// runACP runs the agent's command with args in ACP mode (3 minutes at most), env added to the
// agent's environment: initialize, then steps; its standard error is kept in the home's folder.
func (h *AgentHome) runACP(args, env []string, steps func(*acpConn) error) error {
	h.runs++
	bin, _ := MoreBin(h.cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, h.cmd), args...)
	cmd.Dir = h.Proj
	cmd.Env = append(append(os.Environ(), "HOME="+h.Home, "NO_COLOR=1", "CI=1"), env...)
	cmd.Env = append(cmd.Env, h.env(h.Fake.URL)...)
	stderr, err := os.Create(filepath.Join(h.dir, fmt.Sprintf("run%d.out", h.runs)))
	if err != nil {
		return err
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	c := &acpConn{in: in, out: bufio.NewReaderSize(out, 1<<20)}
	err = c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if err == nil {
		err = steps(c)
	}
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	if err != nil {
		return fmt.Errorf("%s --acp: %w", h.cmd, err)
	}
	return nil
}

// acpConn is a JSON-RPC connection over a child's standard input and output, one message a line.
type acpConn struct {
	in     interface{ Write([]byte) (int, error) }
	out    *bufio.Reader
	id     int
	result gjson.Result // the result of the last call
}

// call sends a request and reads until its response, answering the agent's own requests.
func (c *acpConn) call(method string, params any) error {
	c.id++
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if !gjson.ValidBytes(line) {
			continue
		}
		m := gjson.ParseBytes(line)
		switch {
		case m.Get("method").Exists() && m.Get("id").Exists(): // the agent asks
			option := m.Get("params.options.0.optionId").Value()
			if err := c.send(map[string]any{"jsonrpc": "2.0", "id": m.Get("id").Value(),
				"result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}}); err != nil {
				return err
			}
		case m.Get("id").Int() == int64(c.id) && !m.Get("method").Exists():
			if e := m.Get("error"); e.Exists() {
				return fmt.Errorf("%s: %s", method, e.Raw)
			}
			c.result = m.Get("result")
			return nil
		}
	}
}

func (c *acpConn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

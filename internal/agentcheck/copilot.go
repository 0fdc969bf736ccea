package agentcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/tidwall/gjson"
)

// Agents beyond Claude Code, Codex and pi, as FromRequest and FromLoad name them.
const (
	Copilot = agent.Copilot
	Droid   = agent.Droid
)

// MoreAgent finds an agent installed by scripts/install-agents.sh (MoreBin): the path of its
// command; ok is false when it is absent: the caller skips.
func MoreAgent(name string) (path string, ok bool) {
	bin, ok := MoreBin(name)
	if !ok {
		return "", false
	}
	return filepath.Join(bin, name), true
}

// ChatHome is a fresh home and project folder in which a real agent runs against a FakeChat,
// offline: nothing leaves 127.0.0.1.
type ChatHome struct {
	Bin  string
	Home string // $HOME of the agent
	Proj string // its working folder
	Fake *FakeChat
	env  []string
	Out  bytes.Buffer // the agent's output of the last run
}

func newChatHome(bin, dir string, toolCall func(string) (string, string)) (*ChatHome, error) {
	h := &ChatHome{Bin: bin, Home: filepath.Join(dir, "home"), Proj: filepath.Join(dir, "proj")}
	for _, d := range []string{h.Home, h.Proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	proj, err := filepath.EvalSymlinks(h.Proj)
	if err != nil {
		return nil, err
	}
	h.Proj = proj
	if h.Fake, err = StartFakeChat(toolCall); err != nil {
		return nil, err
	}
	h.env = []string{"HOME=" + h.Home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "NO_COLOR=1"}
	return h, nil
}

// Close stops the fake model.
func (h *ChatHome) Close() error { return h.Fake.Close() }

// Run runs the agent with args in the project folder (3 minutes at most).
func (h *ChatHome) Run(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Dir = h.Proj
	cmd.Env = h.env
	h.Out.Reset()
	cmd.Stdout = &h.Out
	cmd.Stderr = &h.Out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %v: %s", filepath.Base(h.Bin), args, err, tail(h.Out.String(), 2000))
	}
	return nil
}

// NewCopilotHome is a home in which Copilot CLI runs in BYOK offline mode (COPILOT_OFFLINE,
// COPILOT_PROVIDER_BASE_URL): no GitHub login, no call but to the fake model.
func NewCopilotHome(bin, dir string) (*ChatHome, error) {
	h, err := newChatHome(bin, dir, CopilotView)
	if err != nil {
		return nil, err
	}
	h.env = append(h.env, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+h.Fake.URL+"/v1",
		"COPILOT_PROVIDER_API_KEY=sk-fake", "COPILOT_MODEL=gpt-4.1", "COPILOT_DISABLE_TERMINAL_TITLE=1")
	return h, nil
}

// CopilotPrompt runs one non-interactive Copilot turn; resume is a session id or "".
func (h *ChatHome) CopilotPrompt(resume, prompt string) error {
	args := []string{"-p", prompt, "--allow-all-tools", "--no-color"}
	if resume != "" {
		args = append(args, "--resume="+resume)
	}
	return h.Run(args...)
}

// CopilotSessions lists the session files Copilot wrote: session-state/<id>/events.jsonl.
func (h *ChatHome) CopilotSessions() ([]string, error) {
	return filepath.Glob(filepath.Join(h.Home, ".copilot", "session-state", "*", "events.jsonl"))
}

// CopilotResumeRequest places a copy of session where Copilot CLI looks for it
// (session-state/<its session.start's sessionId>/events.jsonl), resumes it with the prompt Prompt
// and returns the body of the request of that turn.
func (h *ChatHome) CopilotResumeRequest(session string) ([]byte, error) {
	data, err := os.ReadFile(session)
	if err != nil {
		return nil, err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	id := gjson.Get(first, "data.sessionId").Str
	if id == "" {
		return nil, fmt.Errorf("%s: no session.start with a sessionId on the first line", session)
	}
	if err := copyFile(session, filepath.Join(h.Home, ".copilot", "session-state", id, "events.jsonl")); err != nil {
		return nil, err
	}
	h.Fake.Reset()
	if err := h.CopilotPrompt(id, Prompt); err != nil {
		return nil, err
	}
	return h.Fake.Last(), nil
}

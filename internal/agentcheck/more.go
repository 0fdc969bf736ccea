package agentcheck

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// The agents beyond Claude Code, Codex and pi (scripts/agent-packages.txt, installed by
// scripts/install-agents.sh into $CTXC_MORE_AGENTS_BIN) run here directly, without resume.sh:
// each in a fresh home, in a project folder, against a FakeAPI.

// MoreBin returns the folder of the extra agents' commands when it holds cmd.
func MoreBin(cmd string) (string, bool) {
	bin := os.Getenv("CTXC_MORE_AGENTS_BIN")
	if bin == "" {
		cache := os.Getenv("CTXC_TEST_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "ctxc-test")
		}
		bin = filepath.Join(cache, "agents-more", "node_modules", ".bin")
	}
	if _, err := os.Stat(filepath.Join(bin, cmd)); err != nil {
		return "", false
	}
	return bin, true
}

// AgentHome is a fresh home and project folder in which one agent runs, run after run, against
// a FakeAPI.
type AgentHome struct {
	Agent string // Gemini or Qwen
	Home  string // $HOME of the agent
	Proj  string // the folder it runs in
	Fake  *FakeAPI
	cmd   string
	env   func(url string) []string
	runs  int
	dir   string
}

// run starts the agent with args in the project folder and waits for it (3 minutes at most).
func (h *AgentHome) run(args ...string) error {
	bin, _ := MoreBin(h.cmd)
	return h.runCmd(filepath.Join(bin, h.cmd), args...)
}

// runCmd runs a command (name: its path, or one on PATH) in the agent's home, as run does.
func (h *AgentHome) runCmd(name string, args ...string) error {
	_, err := h.runOut(name, args...)
	return err
}

// runOut runs a command as runCmd does and returns what it wrote on its standard output.
func (h *AgentHome) runOut(name string, args ...string) ([]byte, error) {
	h.runs++
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = h.Proj
	cmd.Env = append(os.Environ(), "HOME="+h.Home, "NO_COLOR=1", "CI=1")
	cmd.Env = append(cmd.Env, h.env(h.Fake.URL)...)
	cmd.Stdin = nil
	// stdout and stderr are copied by two goroutines: the log both share is locked
	var out lockedBuffer
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, &stdout), &out
	err := cmd.Run()
	os.WriteFile(filepath.Join(h.dir, fmt.Sprintf("run%d.out", h.runs)), out.Bytes(), 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s %v: %v: %s", h.cmd, args, err, tail(out.String(), 2000))
	}
	return stdout.Bytes(), nil
}

// lockedBuffer is a buffer that two goroutines may write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

func (b *lockedBuffer) String() string { return string(b.Bytes()) }

// newHome makes dir/home and dir/proj (a file notes.txt in it, for the tool to read) and
// starts the fake.
func newHome(agent, cmd, dir, tool string, args map[string]any, env func(string) []string) (*AgentHome, error) {
	h := &AgentHome{Agent: agent, Home: filepath.Join(dir, "home"), Proj: filepath.Join(dir, "proj"), cmd: cmd, env: env, dir: dir}
	for _, d := range []string{h.Home, h.Proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(h.Proj, "notes.txt"), []byte("hello from notes\n"), 0o644); err != nil {
		return nil, err
	}
	proj, err := filepath.EvalSymlinks(h.Proj)
	if err != nil {
		return nil, err
	}
	h.Proj = proj
	for k, v := range args {
		if s, ok := v.(string); ok && s == "$PROJ" {
			args[k] = proj
		} else if ok && s == "$NOTES" {
			args[k] = filepath.Join(proj, "notes.txt")
		}
	}
	h.Fake, err = StartFakeAPI(tool, args)
	return h, err
}

// Stop stops the fake.
func (h *AgentHome) Stop() { h.Fake.Stop() }

// lastTurn is the body of the newest request whose conversation ends with the prompt Prompt
// (the turn of a resume, not a side request of the agent's).
func lastTurn(reqs []Request, endsWithPrompt func([]byte) bool) ([]byte, error) {
	for i := len(reqs) - 1; i >= 0; i-- {
		if endsWithPrompt(reqs[i].Body) {
			return reqs[i].Body, nil
		}
	}
	return nil, fmt.Errorf("no request ends with the prompt %q (%d requests)", Prompt, len(reqs))
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

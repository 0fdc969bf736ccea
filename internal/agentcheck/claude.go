package agentcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// ClaudeHome is a fresh home in which the real Claude Code resumes one session, run after run,
// against the fake model (../shared/tools/agents/fakemodel): what resume.sh does once, kept so
// that a test can drive the agent into its own compaction (a run that records a usage near the
// window, then a run that compacts) with hooks installed, and read the session file it leaves.
type ClaudeHome struct {
	Dir  string // the temporary folder (home/, proj/, requests and outputs)
	Home string // $HOME of the agent
	ID   string // the session id
	File string // the session file, where Claude Code keeps it
	proj string
	fake string
	runs int
}

// NewClaudeHome places a copy of session in a fresh home under dir, with settings (may be nil)
// as ~/.claude/settings.json. resume is resume.sh's path (from Tools).
func NewClaudeHome(resume, dir, session string, settings []byte) (*ClaudeHome, error) {
	fake, err := FakeModel(resume)
	if err != nil {
		return nil, err
	}
	h := &ClaudeHome{Dir: dir, Home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "proj"), fake: fake}
	if err := os.MkdirAll(filepath.Join(h.Home, ".claude"), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		return nil, err
	}
	if settings != nil {
		if err := os.WriteFile(filepath.Join(h.Home, ".claude", "settings.json"), settings, 0o644); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(session)
	if err != nil {
		return nil, err
	}
	if h.ID, err = claudeSessionID(session, data); err != nil {
		return nil, err
	}
	proj, err := filepath.EvalSymlinks(h.proj)
	if err != nil {
		return nil, err
	}
	d := filepath.Join(h.Home, ".claude", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(proj, "-"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, err
	}
	h.File = filepath.Join(d, h.ID+".jsonl")
	return h, os.WriteFile(h.File, data, 0o644)
}

var uuidName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// claudeSessionID is the file's name when it is a session id, else the newest sessionId of its
// records (as resume.sh places it).
func claudeSessionID(path string, data []byte) (string, error) {
	if id := strings.TrimSuffix(filepath.Base(path), ".jsonl"); uuidName.MatchString(id) {
		return id, nil
	}
	id := ""
	for _, l := range bytes.Split(data, []byte("\n")) {
		if s := gjson.GetBytes(l, "sessionId").Str; s != "" {
			id = s
		}
	}
	if id == "" {
		return "", fmt.Errorf("%s: no sessionId", path)
	}
	return id, nil
}

// Run resumes the session with prompt (`claude --resume ID -p PROMPT`) against a fake model
// that reports inputTokens of usage, with extra environment, and returns the bodies of the
// requests Claude Code sent to /v1/messages, in order (a compaction's summarization request
// first, then the turn).
func (h *ClaudeHome) Run(prompt string, inputTokens int, env ...string) ([][]byte, error) {
	h.runs++
	n := h.runs
	fake, err := StartFake(h.fake, h.Dir, fmt.Sprint(n), inputTokens)
	if err != nil {
		return nil, err
	}
	defer fake.Stop()
	port := strings.TrimPrefix(fake.URL, "http://127.0.0.1:")
	cmd := exec.Command(filepath.Join(os.Getenv("CTXC_AGENTS_BIN"), "claude"), "--resume", h.ID, "-p", prompt)
	cmd.Dir = h.proj
	cmd.Env = append(claudeEnv(h.Home, "http://127.0.0.1:"+port), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("claude run %d: %v: %s", n, err, tail(out.String(), 2000))
		}
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		return nil, fmt.Errorf("claude run %d: timed out", n)
	}
	return RequestBodies(fake.Log, "/v1/messages")
}

// Fake is a running fake model.
type Fake struct {
	URL string // http://127.0.0.1:PORT
	Log string // the requests it received, one JSON line each
	cmd *exec.Cmd
}

// Stop ends the fake model.
func (f *Fake) Stop() { f.cmd.Process.Kill(); f.cmd.Wait() }

// StartFake runs the fake model bin (FakeModel) with its files in dir, named with tag, reporting
// inputTokens of usage in every reply.
func StartFake(bin, dir, tag string, inputTokens int) (*Fake, error) {
	f := &Fake{Log: filepath.Join(dir, "requests"+tag+".jsonl")}
	portFile := filepath.Join(dir, "port"+tag)
	f.cmd = exec.Command(bin, "-addr", "127.0.0.1:0", "-log", f.Log, "-port-file", portFile, "-input-tokens", fmt.Sprint(inputTokens))
	if err := f.cmd.Start(); err != nil {
		return nil, err
	}
	port, err := waitFile(portFile)
	if err != nil {
		f.Stop()
		return nil, err
	}
	f.URL = "http://127.0.0.1:" + port
	return f, nil
}

// claudeEnv is the environment of a Claude Code run: the process's, with the home and the fake
// endpoint in place of anything that would reach out.
func claudeEnv(home, url string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CONFIG_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
}

func waitFile(path string) (string, error) {
	for range 200 {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return strings.TrimSpace(string(b)), nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return "", fmt.Errorf("%s: the fake model did not start", path)
}

// RequestBodies reads the fake model's log: the bodies of the requests to a path ending in
// suffix.
func RequestBodies(log, suffix string) ([][]byte, error) {
	data, err := os.ReadFile(log)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		var r struct {
			Path string          `json:"path"`
			Body json.RawMessage `json:"body"`
		}
		if json.Unmarshal(l, &r) == nil && strings.HasSuffix(r.Path, suffix) && len(r.Body) > 0 {
			out = append(out, r.Body)
		}
	}
	return out, nil
}

// FakeModel builds ../shared/tools/agents/fakemodel (beside resume.sh) once into the test cache,
// as resume.sh does, and returns the binary.
func FakeModel(resume string) (string, error) {
	agentsDir := filepath.Dir(resume)
	cache := os.Getenv("CTXC_TEST_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "ctxc-test")
	}
	bin := filepath.Join(cache, "bin", "fakemodel")
	src := filepath.Join(agentsDir, "fakemodel")
	bi, err := os.Stat(bin)
	si, serr := os.Stat(filepath.Join(src, "main.go"))
	if err == nil && serr == nil && !si.ModTime().After(bi.ModTime()) {
		return bin, nil
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building fakemodel: %v: %s", err, out)
	}
	return bin, nil
}

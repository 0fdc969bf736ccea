package hooks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// TestAgentCodexHooksCompact installs ctxc's hook with Install into a fresh CODEX_HOME and runs
// the real pinned Codex against the local fake model (shared/tools/agents) until it compacts
// on its own: the hook must run without any trust prompt, receive SessionStart with source
// "compact", and what it prints as additionalContext must reach the next request whole (above
// Codex's default limit of 2,500 tokens, within the limit ctxc sets).
func TestAgentCodexHooksCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real Codex")
	}
	bin := os.Getenv("CTXC_AGENTS_BIN")
	codexBin := filepath.Join(bin, "codex")
	if _, err := os.Stat(codexBin); bin == "" || err != nil {
		agentcheck.Skip(t, "the agents are not installed (CTXC_AGENTS_BIN)")
	}
	fake := fakeModel(t)
	work := t.TempDir()
	home, codexHome, proj, tools := filepath.Join(work, "home"), filepath.Join(work, "codex"), filepath.Join(work, "proj"), filepath.Join(work, "bin")
	for _, d := range []string{home, codexHome, proj, tools} {
		os.MkdirAll(d, 0o755)
	}
	// A stand-in ctxc: logs what the hook receives, answers with a marker after a compaction.
	hookLog := filepath.Join(work, "hook.jsonl")
	script := fmt.Sprintf(`#!/bin/sh
in=$(cat)
printf '%%s\n' "$in" >> %q
case "$in" in *'"source":"compact"'*)
  words=$(printf 'word %%.0s' $(seq 4000))
  printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"CTXC-RESTORED-CONTEXT %%sCTXC-END"}}\n' "$words";;
esac
`, hookLog)
	ctxc := filepath.Join(tools, "ctxc")
	os.WriteFile(ctxc, []byte(script), 0o755)

	url := startFake(t, fake, work)
	// A provider of its own: the built-in OpenAI provider compacts remotely, which the fake
	// model does not answer; any other provider compacts locally and runs the compact hooks.
	conf := fmt.Sprintf("model = \"fake-model\"\nmodel_provider = \"fake\"\nmodel_auto_compact_token_limit = 1000\n\n"+
		"[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n", url+"/v1")
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(conf), 0o600)
	if _, err := (codex{}).Install(Options{Path: codexHome, Ctxc: ctxc}); err != nil {
		t.Fatal(err)
	}

	env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "OPENAI_API_KEY=sk-fake")
	run := func(args ...string) {
		cmd := exec.Command(codexBin, append([]string{"exec", "--skip-git-repo-check"}, args...)...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codex %v: %v\n%s", args, err, out)
		}
	}
	run("first prompt") // the fake reports 300,000 input tokens: over the limit
	sessions, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "*.jsonl"))
	if len(sessions) != 1 {
		t.Fatalf("sessions: %v", sessions)
	}
	id := strings.TrimSuffix(filepath.Base(sessions[0]), ".jsonl")
	id = id[len(id)-36:]
	run("resume", id, "second prompt") // compacts before the turn

	var compact map[string]any
	for _, line := range readLines(t, hookLog) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["hook_event_name"] == "SessionStart" && m["source"] == "compact" {
			compact = m
		}
	}
	if compact == nil {
		t.Fatalf("no SessionStart(compact) reached the hook; it received:\n%s", strings.Join(readLines(t, hookLog), "\n"))
	}
	t.Logf("SessionStart(compact) input: %v", compact)
	reqs := readLines(t, filepath.Join(work, "requests.jsonl"))
	last := reqs[len(reqs)-1]
	if !strings.Contains(last, "CTXC-RESTORED-CONTEXT") || !strings.Contains(last, "second prompt") {
		t.Fatalf("the hook's additionalContext is not in the request after the compaction:\n%.2000s", last)
	}
	if strings.Contains(last, "truncated output") || !strings.Contains(last, strings.Repeat("word ", 4000)+"CTXC-END") {
		t.Fatalf("the hook's additionalContext was cut:\n%.3000s", last)
	}
}

// fakeModel is the fake model's binary built by shared/tools/agents/resume.sh, or built here.
func fakeModel(t *testing.T) string {
	cache := os.Getenv("CTXC_TEST_CACHE")
	if cache == "" {
		h, _ := os.UserHomeDir()
		cache = filepath.Join(h, ".cache", "ctxc-test")
	}
	bin := filepath.Join(cache, "bin", "fakemodel")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	src, _ := filepath.Abs("../../../shared/tools/agents/fakemodel")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no fake model (shared/tools/agents)")
	}
	os.MkdirAll(filepath.Dir(bin), 0o755)
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Env = src, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the fake model: %v\n%s", err, out)
	}
	return bin
}

// startFake runs the fake model, logging requests to work/requests.jsonl, and returns its URL.
func startFake(t *testing.T, bin, work string) string {
	port := filepath.Join(work, "port")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-log", filepath.Join(work, "requests.jsonl"),
		"-port-file", port, "-input-tokens", "300000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 200; i++ {
		if p, err := os.ReadFile(port); err == nil && len(strings.TrimSpace(string(p))) > 0 {
			return "http://127.0.0.1:" + strings.TrimSpace(string(p))
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("the fake model did not start")
	return ""
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			lines = append(lines, s)
		}
	}
	return lines
}

package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/tidwall/gjson"
)

// The real Claude Code with ctxc's guard installed (the SessionStart(compact) hook), driven
// into its own compaction, manual and automatic, against a fake model whose summary is "OK":
// a summary that keeps nothing. The next request must hold the facts the summary lost, the
// session must still resume, and ctxc audit must see the note restore them.

var (
	ctxcBinOnce sync.Once
	ctxcBin     string
	ctxcBinErr  error
)

// builtCtxc builds the ctxc binary once for the tests that hand it to a real agent.
func builtCtxc(t *testing.T) string {
	t.Helper()
	ctxcBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ctxc-bin-")
		if err != nil {
			ctxcBinErr = err
			return
		}
		ctxcBin = filepath.Join(dir, "ctxc")
		if out, err := exec.Command("go", "build", "-o", ctxcBin, "..").CombinedOutput(); err != nil {
			ctxcBinErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if ctxcBinErr != nil {
		t.Fatal(ctxcBinErr)
	}
	return ctxcBin
}

// guardSettings is a settings file with the user's own hook and ctxc's guard, installed by
// the ctxc binary itself (`ctxc hooks install claude-code`).
func guardSettings(t *testing.T, bin, home string, extra ...string) []byte {
	t.Helper()
	settings := filepath.Join(home, "settings.json")
	os.MkdirAll(home, 0o755)
	os.WriteFile(settings, []byte(`{"model":"opus","hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"true"}]}]}}`), 0o644)
	args := append([]string{"hooks", "install", "claude-code", "--settings", settings}, extra...)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("ctxc hooks install: %v: %s", err, out)
	}
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), bin+" hook claude-code") || !strings.Contains(string(data), `"command":"true"`) {
		t.Fatalf("settings after install:\n%s", data)
	}
	return data
}

// userText joins the text blocks of the user messages of a Messages API request.
func userText(body []byte) string {
	var b strings.Builder
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		c := m.Get("content")
		if c.Type == gjson.String {
			b.WriteString(c.Str + "\n")
		}
		c.ForEach(func(_, bl gjson.Result) bool {
			b.WriteString(bl.Get("text").Str + bl.Get("content").String() + "\n")
			return true
		})
		return true
	})
	return b.String()
}

// the facts of testdata/example/session.jsonl the fake summary loses: rules, the last request,
// files modified.
var exampleFacts = []string{
	"Don't change the public Store interface beyond that.",
	"Commit it as two commits: TTL first, then the janitor.",
	"/home/dev/kvstore/internal/cache/cache.go",
	"/home/dev/kvstore/internal/server/handlers.go",
	"/home/dev/kvstore/README.md",
}

func TestAgentClaudeCodeGuard(t *testing.T) {
	resume := agentTools(t)
	bin := builtCtxc(t)
	t.Run("manual", func(t *testing.T) {
		dir := t.TempDir()
		settings := guardSettings(t, bin, filepath.Join(dir, "install"))
		h, err := agentcheck.NewClaudeHome(resume, dir, "../testdata/example/session.jsonl", settings)
		if err != nil {
			t.Fatal(err)
		}
		state := "XDG_STATE_HOME=" + filepath.Join(dir, "state")
		reqs, err := h.Run("/compact", 10, state)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reqs {
			if !strings.Contains(userText(r), "Your task is to create a detailed summary of the conversation so far") {
				t.Fatalf("/compact: request %d of %d is not a summarization request", i+1, len(reqs))
			}
		}
		checkGuarded(t, h, bin, 10, state)
	})
	t.Run("memory", func(t *testing.T) {
		// With --memory, the hook merges the session's memory into the memory file before it
		// answers; the user's own text in the file stays, and the note still reaches the model.
		dir := t.TempDir()
		mem := filepath.Join(dir, "project", "CLAUDE.md")
		os.MkdirAll(filepath.Dir(mem), 0o755)
		user := "# kvstore\n\nRun make before pushing.\n"
		os.WriteFile(mem, []byte(user), 0o644)
		settings := guardSettings(t, bin, filepath.Join(dir, "install"), "--memory", mem)
		if !strings.Contains(string(settings), "--memory "+mem) {
			t.Fatalf("settings after install --memory:\n%s", settings)
		}
		h, err := agentcheck.NewClaudeHome(resume, dir, "../testdata/example/session.jsonl", settings)
		if err != nil {
			t.Fatal(err)
		}
		state := "XDG_STATE_HOME=" + filepath.Join(dir, "state")
		if _, err := h.Run("/compact", 10, state); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(mem)
		if !strings.HasPrefix(string(data), user+"\n<!-- ctxc:memory:start -->") {
			t.Fatalf("memory file after the compaction:\n%s", data)
		}
		for _, want := range []string{"- Don't change the public Store interface beyond that. _(1× in 1 session",
			"`/home/dev/kvstore/internal/cache/cache.go`"} {
			if !strings.Contains(string(data), want) {
				t.Errorf("memory file lacks %q:\n%s", want, data)
			}
		}
		log, _ := os.ReadFile(filepath.Join(dir, "state", "ctxc", "hooks.log"))
		if !strings.Contains(string(log), " note ") || !strings.Contains(string(log), "memory: "+mem) {
			t.Fatalf("hook log:\n%s", log)
		}
		checkGuarded(t, h, bin, 10, state)
	})
	t.Run("auto", func(t *testing.T) {
		// A session of a model with a 1M-token window: a run that records a usage near it, then a
		// run that compacts before its turn.
		src := "../../shared/samples/claude-code/ccl-v2.1.114-worktrees-attachments.jsonl"
		if _, err := os.Stat(src); err != nil {
			t.Skip("../shared/samples absent")
		}
		dir := t.TempDir()
		settings := guardSettings(t, bin, filepath.Join(dir, "install"))
		h, err := agentcheck.NewClaudeHome(resume, dir, src, settings)
		if err != nil {
			t.Fatal(err)
		}
		state := "XDG_STATE_HOME=" + filepath.Join(dir, "state")
		if _, err := h.Run("Reply with OK.", 985000, state); err != nil {
			t.Fatal(err)
		}
		reqs, err := h.Run("Now say OK again.", 985000, state)
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) < 2 {
			t.Fatalf("%d requests: Claude Code did not compact on its own", len(reqs))
		}
		turn := userText(reqs[len(reqs)-1])
		if !strings.Contains(turn, "[ctxc] This conversation was just compacted") || !strings.Contains(turn, "use the builtin subagent teams") {
			t.Fatalf("the turn after the automatic compaction lacks ctxc's note with the user's rule:\n%.3000s", turn)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "state", "ctxc", "hooks.log"))
		if !strings.Contains(string(log), "SessionStart/compact") || !strings.Contains(string(log), " note ") {
			t.Fatalf("hook log:\n%s", log)
		}
	})
}

// checkGuarded: after the compaction, the session resumes, its next request holds the note
// with the facts the summary lost, and ctxc audit sees the agent's summary lose them and the
// note restore them.
func checkGuarded(t *testing.T, h *agentcheck.ClaudeHome, bin string, tokens int, env ...string) {
	t.Helper()
	reqs, err := h.Run("Reply with OK.", tokens, env...)
	if err != nil {
		t.Fatalf("the compacted session does not resume: %v", err)
	}
	turn := userText(reqs[len(reqs)-1])
	if !strings.Contains(turn, "This session is being continued from a previous conversation") {
		t.Fatalf("the resumed request does not start from Claude Code's summary:\n%.2000s", turn)
	}
	for _, f := range exampleFacts {
		if !strings.Contains(turn, f) {
			t.Errorf("the next request lacks %q, which the summary lost", f)
		}
	}
	out, err := exec.Command(bin, "audit", "--json", h.File).Output()
	if err != nil {
		t.Fatalf("ctxc audit: %v", err)
	}
	var c struct {
		By       string  `json:"by"`
		Recall   float64 `json:"recall"`
		WithNote float64 `json:"recall_with_note"`
		Total    struct{ Facts, Restored int }
	}
	json.Unmarshal([]byte(strings.SplitN(string(out), "\n", 2)[0]), &c)
	if c.By != "agent" || c.Total.Facts == 0 || c.Recall > 0.5 || c.WithNote < 0.99 {
		t.Fatalf("audit of the guarded compaction: %s", out)
	}
}

// TestAgentCodexGuard: the real Codex with ctxc's guard installed (`ctxc hooks install codex`),
// compacting on its own with a summary that keeps nothing ("OK"): the request after the
// compaction holds ctxc's note with what the summary lost, the user's rule and URL among them.
func TestAgentCodexGuard(t *testing.T) {
	resume := agentTools(t)
	bin := builtCtxc(t)
	fakeBin, err := agentcheck.FakeModel(resume)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	home, codexHome, proj := filepath.Join(work, "home"), filepath.Join(work, "codex"), filepath.Join(work, "proj")
	for _, d := range []string{home, codexHome, proj} {
		os.MkdirAll(d, 0o755)
	}
	fake, err := agentcheck.StartFake(fakeBin, work, "", 300000)
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Stop()
	// A provider of its own: the built-in OpenAI provider compacts remotely (the fake model does
	// not answer that); any other provider compacts locally and runs the compact hooks.
	conf := fmt.Sprintf("model = \"fake-model\"\nmodel_provider = \"fake\"\nmodel_auto_compact_token_limit = 1000\n\n"+
		"[model_providers.fake]\nname = \"fake\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"OPENAI_API_KEY\"\n", fake.URL+"/v1")
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(conf), 0o600)
	if out, err := exec.Command(bin, "hooks", "install", "codex", "--dir", codexHome, "--memory", "AGENTS.md").CombinedOutput(); err != nil {
		t.Fatalf("ctxc hooks install codex: %v: %s", err, out)
	}
	env := append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "OPENAI_API_KEY=sk-fake", "XDG_STATE_HOME="+filepath.Join(work, "state"))
	codex := func(args ...string) {
		cmd := exec.Command(filepath.Join(os.Getenv("CTXC_AGENTS_BIN"), "codex"), append([]string{"exec", "--skip-git-repo-check"}, args...)...)
		cmd.Dir, cmd.Env = proj, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("codex %v: %v\n%s", args, err, out)
		}
	}
	// A session in which the agent changed files: Codex's compaction keeps the user's messages
	// but not the tool calls, so the files modified are what its summary must keep.
	id := "019c0000-0000-7000-8000-0000000000c7"
	rollout := filepath.Join(codexHome, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-"+id+".jsonl")
	os.MkdirAll(filepath.Dir(rollout), 0o755)
	os.WriteFile(rollout, []byte(codexRollout(id, proj)), 0o644)
	codex("resume", id, "Carry on.") // the fake reports 300,000 tokens: over the limit
	codex("resume", id, "Go on.")    // Codex compacts before this turn
	reqs, err := agentcheck.RequestBodies(fake.Log, "/responses")
	if err != nil {
		t.Fatal(err)
	}
	last := string(reqs[len(reqs)-1])
	for _, want := range []string{"[ctxc] This conversation was just compacted", "internal/api/server.go", "internal/api/limit.go", "Go on."} {
		if !strings.Contains(last, want) {
			t.Errorf("the request after the compaction lacks %q", want)
		}
	}
	log, _ := os.ReadFile(filepath.Join(work, "state", "ctxc", "hooks.log"))
	if !strings.Contains(string(log), "codex SessionStart/compact") || !strings.Contains(string(log), "what the newest compaction's summary lost") {
		t.Errorf("hook log:\n%s", log)
	}
	// --memory AGENTS.md: the project's own file (the hook input's cwd), with the files the
	// session changed.
	mem, _ := os.ReadFile(filepath.Join(proj, "AGENTS.md"))
	for _, want := range []string{"<!-- ctxc:memory:start -->", "- `internal/api/limit.go` _(1× in 1 session"} {
		if !strings.Contains(string(mem), want) {
			t.Errorf("AGENTS.md lacks %q:\n%s\nhook log:\n%s", want, mem, log)
		}
	}
	if t.Failed() {
		t.Logf("hook log:\n%s\nlast request:\n%.4000s", log, last[max(0, len(last)-3000):])
	}
}

// codexRollout is a small Codex session under the provider "fake": a request, an apply_patch
// that changes two files, its output and a reply.
func codexRollout(id, cwd string) string {
	patch := "*** Begin Patch\n*** Update File: internal/api/server.go\n@@\n-a\n+b\n*** Add File: internal/api/limit.go\n+package api\n*** End Patch\n"
	lines := []map[string]any{
		{"type": "session_meta", "payload": map[string]any{"id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd,
			"originator": "codex_cli_rs", "cli_version": "0.169.0", "source": "cli", "model_provider": "fake"}},
		{"type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": "Add rate limiting to the API server."}}}},
		{"type": "response_item", "payload": map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": "call_1", "name": "apply_patch", "input": patch}},
		{"type": "response_item", "payload": map[string]any{"type": "custom_tool_call_output", "call_id": "call_1", "output": "Success. Updated the following files:\nM internal/api/server.go\nA internal/api/limit.go"}},
		{"type": "response_item", "payload": map[string]any{"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": "Rate limiting is in."}}}},
	}
	var b strings.Builder
	for i, l := range lines {
		l["timestamp"] = fmt.Sprintf("2026-01-01T00:00:%02d.000Z", i)
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

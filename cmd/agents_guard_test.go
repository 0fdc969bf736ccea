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

// guardSettings is a settings file with the user's own hook and ctxc's guard, as `ctxc hooks
// install claude-code` writes it.
func guardSettings(t *testing.T, bin, home string) []byte {
	t.Helper()
	settings := filepath.Join(home, "settings.json")
	os.MkdirAll(home, 0o755)
	os.WriteFile(settings, []byte(`{"model":"opus","hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"true"}]}]}}`), 0o644)
	hook := map[string]any{"matcher": "compact", "hooks": []any{map[string]any{"type": "command", "command": bin + " hook claude-code", "timeout": 30}}}
	var s map[string]any
	raw, _ := os.ReadFile(settings)
	json.Unmarshal(raw, &s)
	hooks := s["hooks"].(map[string]any)
	hooks["SessionStart"] = append(hooks["SessionStart"].([]any), hook)
	raw, _ = json.Marshal(s)
	os.WriteFile(settings, raw, 0o644)
	data, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
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

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/tidwall/gjson"
)

// TestAgentGrokKeepsNoSession: Grok CLI, run headless with a tool call against the fake, keeps
// nothing of the conversation on disk (no prompt, answer or tool result in any file of its home
// or project), and has no resume: ctxc has nothing of it to read (README, docs/integrations.md).
// Should a release start keeping sessions, this fails, and the agent gets a reader.
func TestAgentGrokKeepsNoSession(t *testing.T) {
	if _, ok := agentcheck.MoreBin("grok"); !ok {
		agentcheck.Skip(t, "grok not installed (eval \"$(scripts/install-agents.sh)\")")
	}
	h, err := agentcheck.NewGrokHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	prompt := "Look at the project zebra-marker-7 " + agentcheck.ToolWord
	if err := h.RunGrok(prompt); err != nil {
		t.Fatal(err)
	}
	// The agent ran: it called the tool and sent its result back.
	reqs := h.Fake.Requests("")
	sentResult := false
	for _, r := range reqs {
		for _, m := range gjson.GetBytes(r.Body, "messages").Array() {
			if m.Get("role").Str == "tool" && strings.Contains(m.Get("content").Str, "hello from notes") {
				sentResult = true
			}
		}
	}
	if !sentResult {
		t.Fatalf("grok did not send the tool's result back (%d requests): the run proves nothing", len(reqs))
	}
	held, err := h.FilesHolding("zebra-marker-7", "Done.")
	if err != nil {
		t.Fatal(err)
	}
	if len(held) > 0 {
		t.Errorf("grok kept the conversation in %v: it now has sessions for ctxc to read", held)
	}
	// Nor does its folder under the home hold anything but settings.
	filepath.WalkDir(filepath.Join(h.Home, ".grok"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, "settings.json") {
			t.Errorf("grok wrote %s", p)
		}
		return nil
	})
}

package aider_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestAiderHistories: Aider's chat histories (testdata/aider, public files) read as one
// transcript each, opened as their export: the history counts every message Aider's own
// split_chat_history_markdown finds (its "> " output as tool messages, no tool call, no result,
// no compaction); the context is what `aider --restore-chat-history` restores: the user and
// assistant messages of every session, in order, each at the Markdown line it starts at.
func TestAiderHistories(t *testing.T) {
	cases := []struct {
		path                       string
		user, assistant, tool, eff int
		first                      transcript.Message
	}{
		{"../../../testdata/aider/aider/chat-history.md", 1776, 1214, 2816, 2990,
			transcript.Message{Role: transcript.RoleAssistant, Line: 1, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "-*- mode: fundamental -*-\n"}}}},
		{"../../../testdata/aider/zen-mcp-server/.aider.chat.history.md", 8, 0, 12, 8,
			transcript.Message{Role: transcript.RoleUser, Line: 17, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "/add **  \n"}}}},
	}
	for _, c := range cases {
		res, msgs, err := transcript.LoadFile(c.path, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		st := res.Stats
		if st.Format != transcript.FormatAider || st.Messages.User != c.user || st.Messages.Assistant != c.assistant ||
			st.Messages.Tool != c.tool || st.ToolCalls != 0 || st.ToolResults != 0 || st.Compactions != 0 ||
			st.BadLines != 0 || st.EffMessages != c.eff || len(msgs) != c.eff {
			t.Errorf("%s: %+v, %d messages loaded", c.path, st, len(msgs))
			continue
		}
		if m := msgs[0]; m.Role != c.first.Role || m.Line != c.first.Line || len(m.Blocks) != 1 || m.Blocks[0].Text != c.first.Blocks[0].Text {
			t.Errorf("%s: first message %+v, want %+v", c.path, m, c.first)
		}
		md, _ := os.ReadFile(c.path)
		lines := strings.Split(string(md), "\n")
		for _, m := range msgs {
			if l := lines[m.Line-1]; m.Role == transcript.RoleUser && !strings.HasPrefix(l, "#### ") || m.Role == transcript.RoleAssistant && (strings.HasPrefix(l, "#### ") || strings.HasPrefix(l, "> ")) || m.Role == transcript.RoleTool {
				t.Fatalf("%s:%d: a %s message from %q", c.path, m.Line, m.Role, l)
			}
		}
	}
}

package goose

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestGooseMessages: what one stored message sends.
func TestGooseMessages(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       []string // role: text of each message
	}{
		{"hidden from the agent", `{"role":"user","content":[{"type":"text","text":"a"}],"metadata":{"agentVisible":false}}`, nil},
		{"visible", `{"role":"user","content":[{"type":"text","text":"a"}],"metadata":{"agentVisible":true}}`, []string{"user:a"}},
		{"no metadata", `{"role":"assistant","content":[{"type":"text","text":"b"}]}`, []string{"assistant:b"}},
		{"results split the message", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"toolResponse","id":"c",
			"toolResult":{"status":"success","value":{"content":[{"type":"text","text":"x"},{"type":"image"},{"type":"text","text":"y"}]}}},
			{"type":"text","text":"b"}]}`, []string{"user:a", "tool:x\ny", "user:b"}},
		{"an error result", `{"role":"user","content":[{"type":"toolResponse","id":"c","toolResult":{"status":"error","error":"boom"}}]}`,
			[]string{"tool:The tool call returned the following error:\n-32603: boom"}},
		{"another role", `{"role":"system","content":[{"type":"text","text":"a"}]}`, nil},
		{"thinking is none of the text", `{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"b"}]}`,
			[]string{"assistant:b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, m := range messages(jsonl.Value(tc.line), conv.WithText) {
				text := m.TextContent()
				if m.Role == conv.RoleTool {
					text = m.Blocks[0].Text
				}
				got = append(got, string(m.Role)+":"+text)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package cline

import (
	"encoding/json"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestClineRender: the messages of a compaction as Cline stores them, and, read back as the
// cline reader reads a stored message, the same messages and texts.
func TestClineRender(t *testing.T) {
	text := func(s string) conv.Block { return conv.Block{Kind: conv.BlockText, Text: s} }
	for _, tc := range []struct {
		name string
		in   []conv.Message
		want string // the rendered messages, ids left out
		n    int
	}{
		{"user text", []conv.Message{{Role: conv.RoleUser, Blocks: []conv.Block{text("hi")}}},
			`[{"content":[{"text":"hi","type":"text"}],"role":"user"}]`, 1},
		{"summary marked as Cline marks its own", []conv.Message{conv.SummaryMessage("S", 0)},
			`[{"content":[{"text":"` + jsonEsc(conv.SummaryPreamble) + `S","type":"text"}],"metadata":{"kind":"compaction_summary"},"role":"user"}]`, 1},
		{"assistant text and call, thinking left out", []conv.Message{{Role: conv.RoleAssistant, Blocks: []conv.Block{
			{Kind: conv.BlockThinking, Text: "hmm"}, text("let me look"), {Kind: conv.BlockToolCall, ID: "c1", Name: "read_files", Args: `{"path":"a"}`}}}},
			`[{"content":[{"text":"let me look","type":"text"},{"id":"c1","input":{"path":"a"},"name":"read_files","type":"tool_use"}],"role":"assistant"}]`, 1},
		{"call with no arguments", []conv.Message{{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockToolCall, ID: "c2", Name: "x"}}}},
			`[{"content":[{"id":"c2","input":{},"name":"x","type":"tool_use"}],"role":"assistant"}]`, 1},
		{"results each a user message", []conv.Message{{Role: conv.RoleTool, Blocks: []conv.Block{
			{Kind: conv.BlockToolResult, ID: "c1", Name: "read_files", Text: "one"}, {Kind: conv.BlockToolResult, ID: "c2", Name: "x", Text: `[{"a":1}]`}}}},
			`[{"content":[{"content":"one","name":"read_files","tool_use_id":"c1","type":"tool_result"}],"role":"user"},` +
				`{"content":[{"content":"[{\"a\":1}]","name":"x","tool_use_id":"c2","type":"tool_result"}],"role":"user"}]`, 2},
		{"a message of thinking only is none", []conv.Message{{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockThinking, Text: "hmm"}}}}, `null`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := render(tc.in)
			for _, m := range got {
				delete(m, "id")
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want || n != tc.n {
				t.Errorf("got %d messages\n%s\nwant %d\n%s", n, b, tc.n, tc.want)
			}
			var back []conv.Message
			for _, m := range got {
				mb, _ := json.Marshal(m)
				back = append(back, messages(jsonl.Value(mb), conv.WithText)...)
			}
			if len(back) != n {
				t.Fatalf("read back as %d messages, want %d", len(back), n)
			}
			i := 0
			for _, m := range tc.in {
				for _, bl := range m.Blocks {
					if bl.Kind == conv.BlockThinking {
						continue
					}
					found := false
					for _, bm := range back {
						for _, bb := range bm.Blocks {
							found = found || (bb.Kind == bl.Kind && bb.Text == bl.Text && bb.ID == bl.ID)
						}
					}
					if !found {
						t.Errorf("block %d (%v %q) not read back: %+v", i, bl.Kind, bl.Text, back)
					}
					i++
				}
			}
		})
	}
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

package codex

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// codexItemView renders what codexItemMessage makes of an item: the message's role, its kind
// for the history, whether it is a summary, and each block's kind, id, name, arguments, text,
// size and error flag.
func codexItemView(m conv.Message, kind codexKind) string {
	kinds := map[codexKind]string{cxOther: "other", cxAsst: "asst", cxUser: "user", cxBase: "base"}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s", m.Role, kinds[kind])
	if m.Summary {
		b.WriteString("/summary")
	}
	for _, bl := range m.Blocks {
		fmt.Fprintf(&b, " [%s id=%q name=%q args=%q text=%q chars=%d", bl.Kind, bl.ID, bl.Name, bl.Args, bl.Text, bl.Chars)
		if bl.IsError {
			b.WriteString(" error")
		}
		b.WriteString("]")
	}
	return b.String()
}

// TestCodexItemMessage: every kind of response item, and items of types Codex may add, become
// the message (or none) the reader counts and loads.
func TestCodexItemMessage(t *testing.T) {
	for _, tc := range []struct{ name, item, want string }{
		{"assistant message", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`,
			"assistant/asst [text id=\"\" name=\"\" args=\"\" text=\"done\" chars=4]"},
		{"real user message", `{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}`,
			"user/user [text id=\"\" name=\"\" args=\"\" text=\"fix it\" chars=6]"},
		{"injected user message", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}`,
			"user/other [text id=\"\" name=\"\" args=\"\" text=\"<environment_context>x</environment_context>\" chars=44]"},
		{"summary in a replacement history", `{"type":"message","role":"user","content":[{"type":"input_text","text":"Another language model started to solve this problem; here is its summary"}]}`,
			"user/other/summary [text id=\"\" name=\"\" args=\"\" text=\"Another language model started to solve this problem; here is its summary\" chars=73]"},
		{"developer message", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"be brief"}]}`,
			"developer/other [text id=\"\" name=\"\" args=\"\" text=\"be brief\" chars=8]"},
		{"reasoning", `{"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"},{"type":"summary_text","text":""}],"content":[{"type":"reasoning_text","text":"raw"}],"encrypted_content":"gAAA"}`,
			"assistant/asst [thinking id=\"\" name=\"\" args=\"\" text=\"**Plan**\" chars=8] [thinking id=\"\" name=\"\" args=\"\" text=\"raw\" chars=3]"},
		{"reasoning without text", `{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"}`,
			"assistant/asst"},
		{"function call", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}`,
			"assistant/asst [tool_call id=\"call_1\" name=\"shell\" args=\"{\\\"command\\\":[\\\"ls\\\"]}\" text=\"\" chars=23]"},
		{"function call with only an id", `{"type":"function_call","name":"shell","arguments":"{}","id":"fc_1"}`,
			"assistant/asst [tool_call id=\"fc_1\" name=\"shell\" args=\"{}\" text=\"\" chars=7]"},
		{"custom tool call", `{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"call_2"}`,
			"assistant/asst [tool_call id=\"call_2\" name=\"apply_patch\" args=\"*** Begin Patch\" text=\"\" chars=26]"},
		{"local shell call", `{"type":"local_shell_call","call_id":"call_3","action":{"type":"exec","command":["ls"]}}`,
			"assistant/asst [tool_call id=\"call_3\" name=\"local_shell\" args=\"{\\\"type\\\":\\\"exec\\\",\\\"command\\\":[\\\"ls\\\"]}\" text=\"\" chars=43]"},
		{"web search", `{"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"go"}}`,
			"assistant/asst [opaque id=\"\" name=\"\" args=\"\" text=\"{\\\"type\\\":\\\"search\\\",\\\"query\\\":\\\"go\\\"}\" chars=30]"},
		{"compaction", `{"type":"compaction","encrypted_content":"gAAA"}`,
			"user/other/summary [opaque id=\"\" name=\"\" args=\"\" text=\"{\\\"type\\\":\\\"compaction\\\",\\\"encrypted_content\\\":\\\"gAAA\\\"}\" chars=0]"},
		{"compaction summary", `{"type":"compaction_summary","encrypted_content":"gAAA"}`,
			"user/other/summary [opaque id=\"\" name=\"\" args=\"\" text=\"{\\\"type\\\":\\\"compaction_summary\\\",\\\"encrypted_content\\\":\\\"gAAA\\\"}\" chars=0]"},
		{"ghost snapshot", `{"type":"ghost_snapshot","ghost_commit":{"id":"abc"}}`,
			"/other"},
		{"function call output", `{"type":"function_call_output","call_id":"call_1","output":"a.go"}`,
			"tool/other [tool_result id=\"call_1\" name=\"\" args=\"\" text=\"a.go\" chars=4]"},
		{"custom tool call output", `{"type":"custom_tool_call_output","call_id":"call_2","output":"Success."}`,
			"tool/other [tool_result id=\"call_2\" name=\"\" args=\"\" text=\"Success.\" chars=8]"},
		{"output conv.Object that failed", `{"type":"function_call_output","call_id":"call_1","output":{"content":"exit 1","success":false}}`,
			"tool/other [tool_result id=\"call_1\" name=\"\" args=\"\" text=\"exit 1\" chars=6 error]"},
		{"output of a new type", `{"type":"mcp_tool_call_output","call_id":"call_4","output":[{"type":"input_text","text":"ok"}]}`,
			"tool/other [tool_result id=\"call_4\" name=\"\" args=\"\" text=\"ok\" chars=2]"},
		{"output type without output", `{"type":"mcp_tool_call_output","call_id":"call_4"}`,
			"tool/other [tool_result id=\"call_4\" name=\"\" args=\"\" text=\"\" chars=0]"},
		{"call of a new type with arguments", `{"type":"mcp_tool_call","call_id":"call_5","name":"search","arguments":"{\"q\":1}"}`,
			"assistant/asst [tool_call id=\"call_5\" name=\"search\" args=\"{\\\"q\\\":1}\" text=\"\" chars=13]"},
		{"call of a new type with input", `{"type":"tool_search_call","call_id":"call_6","name":"find","input":"needle"}`,
			"assistant/asst [tool_call id=\"call_6\" name=\"find\" args=\"needle\" text=\"\" chars=10]"},
		{"item of a new type with only a call id", `{"type":"mcp_list_tools","call_id":"call_7"}`,
			"/other"},
		{"item of a new type without a call id", `{"type":"mcp_tool_call","id":"x","name":"search","arguments":"{}"}`,
			"/other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, kind := codexItemMessage(jsonl.Value(tc.item), conv.WithText)
			if got := codexItemView(m, kind); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			// conv.Counted for stats, the item is the same message without its text.
			for i := range m.Blocks {
				m.Blocks[i].Text, m.Blocks[i].Args = "", ""
			}
			if got, want := codexItemView(codexItemMessage(jsonl.Value(tc.item), conv.NoText)), codexItemView(m, kind); got != want {
				t.Errorf("counts only: got  %s\nwant %s", got, want)
			}
		})
	}
}

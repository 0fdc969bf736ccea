package gemini

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
)

// TestGeminiContent: the conversation a record yields, as Gemini CLI rebuilds it.
func TestGeminiContent(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"session context is not sent", `{"id":"a","type":"user","content":[{"text":"  <session_context>x"}]}`, ""},
		{"slash command", `{"id":"a","type":"user","content":"/compress"}`, ""},
		{"user text", `{"id":"a","type":"user","content":[{"text":"hi"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`, "user:text,image"},
		{"thoughts, text and calls", `{"id":"a","type":"gemini","content":"ok","thoughts":[{"subject":"S","description":"d"}],"toolCalls":[{"id":"c","name":"n","args":{},"result":[{"functionResponse":{"id":"c","name":"n","response":{"error":"no"}}}]}]}`, "assistant:thinking,text,tool_call tool:tool_result"},
		{"calls in the content are taken as they are", `{"id":"a","type":"gemini","content":[{"functionCall":{"id":"c","name":"n","args":{}}}],"thoughts":[{"description":"d"}],"toolCalls":[{"id":"c","name":"n","result":"r"}]}`, "assistant:tool_call tool:tool_result"},
		{"an empty model message", `{"id":"a","type":"gemini","content":"","thoughts":[]}`, ""},
		{"warning", `{"id":"a","type":"warning","content":"w"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := (&reader{}).Materialize([]byte(tc.line), conv.Ref{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				var kinds []string
				for _, b := range m.Blocks {
					kinds = append(kinds, b.Kind.String())
				}
				got = append(got, string(m.Role)+":"+strings.Join(kinds, ","))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}

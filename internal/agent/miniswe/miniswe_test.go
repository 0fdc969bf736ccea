package miniswe

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// TestRules: what mini-swe-agent sends of the messages it keeps, and the usage it recorded.
func TestRules(t *testing.T) {
	lines := []string{
		`{"type":"mini-swe-agent","sessionId":"i1","messages":7}`,
		`{"role":"system","content":"sys"}`,
		`{"role":"user","content":[{"type":"text","text":"task"}]}`,
		// 1.x, text-based: the action is in the answer's text; its usage once per response id.
		`{"role":"assistant","content":"THOUGHT\n` + "```bash\\nls\\n```" + `","extra":{"response":{"id":"r1","usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":60}}}}}`,
		`{"role":"assistant","content":"again","extra":{"response":{"id":"r1","usage":{"prompt_tokens":100,"completion_tokens":7}}}}`,
		// 2.x, tool calls: "" beside them is no text; a cached count past the prompt is the prompt.
		`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}],"extra":{"actions":[{"command":"ls"}],"response":{"id":"r2","usage":{"prompt_tokens":120,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":500}}}}}`,
		`{"role":"tool","tool_call_id":"c1","content":"<returncode>0</returncode>\n<output>\na\n</output>","extra":{"returncode":0}}`,
		`{"role":"exit","content":"patch","extra":{"exit_status":"Submitted","submission":"patch"}}`,
	}
	r := NewReader()
	st := &conv.Stats{}
	var off int64
	for i, s := range lines {
		r.Add(&conv.Line{Line: jsonl.Line{Num: i + 1, Offset: off, Size: len(s) + 1}}, gjson.Parse(s), st)
		off += int64(len(s) + 1)
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	var got []string
	for _, ref := range r.Finish(st) {
		ms, err := r.Materialize(data[ref.Off:ref.Off+int64(ref.Size)-1], ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			s := string(m.Role) + ":"
			for _, b := range m.Blocks {
				switch b.Kind {
				case conv.BlockToolCall:
					s += "[" + b.Name + " " + b.Args + "]"
				case conv.BlockToolResult:
					s += "<" + b.ID + ">" + b.Text
				default:
					s += b.Text
				}
			}
			got = append(got, s)
		}
	}
	want := []string{"system:sys", "user:task", "assistant:THOUGHT\n```bash\nls\n```", "assistant:again",
		`assistant:[bash {"command":"ls"}]`, "tool:<c1><returncode>0</returncode>\n<output>\na\n</output>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("context\n got %q\nwant %q", got, want)
	}
	if st.Format != conv.FormatMiniSWE || st.Messages.Total() != 6 || st.ToolCalls != 1 || st.ToolResults != 1 {
		t.Errorf("stats %+v", st)
	}
	if u := st.Usage; u == nil || u.Responses != 2 || u.InputTokens != 40 || u.CacheRead != 180 || u.OutputTokens != 10 || u.LastContext != 120 {
		t.Errorf("usage %+v", st.Usage)
	}
	if rec := Record(jsonl.Value(lines[7])); len(rec.Messages) != 0 {
		t.Errorf("the exit seen as a message: %+v", rec)
	}
	if rec := Record(jsonl.Value(lines[6])); len(rec.Messages) != 1 || rec.Messages[0].Blocks[0].ID != "c1" {
		t.Errorf("tool result: %+v", rec)
	}
}

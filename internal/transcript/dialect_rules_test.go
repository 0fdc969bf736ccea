package transcript

import (
	"strings"
	"testing"
)

// spec builds messages from lines "role: block block ...", a block being text, call:ID (call:-
// for a call without an id), result:ID, or raw (the message has its Raw).
func spec(lines ...string) []Message {
	var ms []Message
	for _, l := range lines {
		role, blocks, _ := strings.Cut(l, ":")
		m := Message{Role: Role(role)}
		for _, b := range strings.Fields(blocks) {
			kind, id, _ := strings.Cut(b, ":")
			if id == "-" {
				id = ""
			}
			switch kind {
			case "text":
				m.Blocks = append(m.Blocks, Block{Kind: BlockText, Text: "t"})
			case "call":
				m.Blocks = append(m.Blocks, Block{Kind: BlockToolCall, ID: id, Name: "sh", Args: "{}"})
			case "result":
				m.Blocks = append(m.Blocks, Block{Kind: BlockToolResult, ID: id, Text: "r"})
			case "raw":
				m.Raw = []byte(`{}`)
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// unspec writes messages back as spec lines, a placeholder result as result:ID!.
func unspec(ms []Message) []string {
	var out []string
	for _, m := range ms {
		l := string(m.Role) + ":"
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockText:
				l += " text"
			case BlockToolCall:
				l += " call:" + b.ID
			case BlockToolResult:
				l += " result:" + b.ID
				if b.Text == PlaceholderResult && b.IsError && b.Chars == len(PlaceholderResult) {
					l += "!"
				}
			}
		}
		if m.Raw != nil {
			l += " raw"
		}
		out = append(out, l)
	}
	return out
}

// TestPairToolCallsRules: where PairToolCalls answers calls with placeholders, which results it
// drops, which calls get an id, and which messages keep their Raw.
func TestPairToolCallsRules(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		in, want              []string
		placeholders, dropped int
	}{
		{"answered", []string{"user: text", "assistant: call:a raw", "tool: result:a raw", "assistant: text raw"},
			[]string{"user: text", "assistant: call:a raw", "tool: result:a raw", "assistant: text raw"}, 0, 0},
		{"left open in the middle", []string{"user: text", "assistant: call:a", "user: text"},
			[]string{"user: text", "assistant: call:a", "tool: result:a!", "user: text"}, 1, 0},
		{"left open at the end", []string{"user: text", "assistant: call:a"},
			[]string{"user: text", "assistant: call:a"}, 0, 0},
		{"a result without a call", []string{"user: text", "tool: result:x raw", "assistant: text"},
			[]string{"user: text", "assistant: text"}, 0, 1},
		{"a result without a call beside one with", []string{"assistant: call:a", "tool: result:a result:x raw"},
			[]string{"assistant: call:a", "tool: result:a"}, 0, 1},
		{"results in several tool messages", []string{"assistant: call:a call:b", "tool: result:b", "tool: result:a", "user: text"},
			[]string{"assistant: call:a call:b", "tool: result:b", "tool: result:a", "user: text"}, 0, 0},
		{"some results, then the user", []string{"assistant: call:a call:b", "tool: result:a", "user: text"},
			[]string{"assistant: call:a call:b", "tool: result:a", "tool: result:b!", "user: text"}, 1, 0},
		{"a result and text in one message", []string{"assistant: call:a call:b", "user: result:a text"},
			[]string{"assistant: call:a call:b", "tool: result:b!", "user: result:a text"}, 1, 0},
		{"a result and a call in one message", []string{"assistant: call:a call:b", "assistant: result:a call:c", "tool: result:c"},
			[]string{"assistant: call:a call:b", "tool: result:b!", "assistant: result:a call:c", "tool: result:c"}, 1, 0},
		{"a new call while one is open", []string{"assistant: call:a", "assistant: call:b", "tool: result:b"},
			[]string{"assistant: call:a", "tool: result:a!", "assistant: call:b", "tool: result:b"}, 1, 0},
		{"a tool message of text", []string{"assistant: call:a", "tool: text"},
			[]string{"assistant: call:a", "tool: result:a!", "tool: text"}, 1, 0},
		{"an empty tool message", []string{"assistant: call:a", "tool:"},
			[]string{"assistant: call:a", "tool:"}, 0, 0},
		{"an empty user message", []string{"assistant: call:a", "user:"},
			[]string{"assistant: call:a", "tool: result:a!", "user:"}, 1, 0},
		{"calls without ids", []string{"assistant: call:- text raw", "assistant: call:x call:- raw", "tool: result:call_ctxc_2"},
			[]string{"assistant: call:call_ctxc_1 text", "tool: result:call_ctxc_1!", "assistant: call:x call:call_ctxc_2",
				"tool: result:call_ctxc_2"}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := PairToolCalls(spec(tc.in...))
			if got := unspec(out); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if rep.Placeholders != tc.placeholders || rep.DroppedResults != tc.dropped {
				t.Errorf("report %+v, want %d placeholders, %d dropped", rep, tc.placeholders, tc.dropped)
			}
		})
	}
}

// TestPairToolCallsMoves: a message that stands between calls and their results (Codex records
// a developer or user message while a call runs) is moved after the results, which are all
// kept: none is answered with a placeholder nor dropped as an orphan.
func TestPairToolCallsMoves(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		in, want                     []string
		moved, placeholders, dropped int
	}{
		{"a developer message between a call and its result",
			[]string{"user: text", "assistant: call:a raw", "developer: text raw", "tool: result:a raw", "assistant: text raw"},
			[]string{"user: text", "assistant: call:a raw", "tool: result:a raw", "developer: text raw", "assistant: text raw"}, 1, 0, 0},
		{"messages between parallel calls and their results",
			[]string{"assistant: call:a call:b", "developer: text", "user: text", "tool: result:a", "tool: result:b", "assistant: text"},
			[]string{"assistant: call:a call:b", "tool: result:a", "tool: result:b", "developer: text", "user: text", "assistant: text"}, 2, 0, 0},
		{"a message between each call and its result",
			[]string{"assistant: call:a", "system: text", "tool: result:a", "assistant: call:b", "user: text", "tool: result:b"},
			[]string{"assistant: call:a", "tool: result:a", "system: text", "assistant: call:b", "tool: result:b", "user: text"}, 2, 0, 0},
		{"a result that never comes",
			[]string{"assistant: call:a call:b", "developer: text", "tool: result:a", "user: text"},
			[]string{"assistant: call:a call:b", "tool: result:a", "tool: result:b!", "developer: text", "user: text"}, 1, 1, 0},
		{"a note between a tool_use and a tool_result given with text",
			[]string{"assistant: call:a", "user: text", "user: result:a text raw", "assistant: text"},
			[]string{"assistant: call:a", "user: result:a", "user: text", "user: text", "assistant: text"}, 1, 0, 0},
		{"an assistant text between a call and its result",
			[]string{"assistant: call:a", "assistant: text", "tool: result:a"},
			[]string{"assistant: call:a", "tool: result:a", "assistant: text"}, 1, 0, 0},
		{"the last result in, a call left open",
			[]string{"assistant: call:a call:b", "developer: text", "tool: result:a"},
			[]string{"assistant: call:a call:b", "tool: result:a", "tool: result:b!", "developer: text"}, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rep := PairToolCalls(spec(tc.in...))
			if got := unspec(out); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if rep.Moved != tc.moved || rep.Placeholders != tc.placeholders || rep.DroppedResults != tc.dropped {
				t.Errorf("report %+v, want %d moved, %d placeholders, %d dropped", rep, tc.moved, tc.placeholders, tc.dropped)
			}
		})
	}
}

// TestAnthropicLinesRules: the Messages API shape of a message list: user and assistant turns
// alternating from the user's, tool results in front of a turn, what cannot be rebuilt left out.
func TestAnthropicLinesRules(t *testing.T) {
	call := func(id, args string) Block { return Block{Kind: BlockToolCall, ID: id, Name: "sh", Args: args} }
	result := func(id string) Block { return Block{Kind: BlockToolResult, ID: id, Text: "r" + id} }
	text := func(s string) Block { return Block{Kind: BlockText, Text: s} }
	const thinking = `{"type":"thinking","thinking":"hm","signature":"sig"}`
	const image = `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}`
	for _, tc := range []struct {
		name string
		in   []Message
		want []string
	}{
		{"instructions are the user's", []Message{
			{Role: RoleSystem, Blocks: []Block{text("be brief")}},
			{Role: RoleDeveloper, Blocks: []Block{text("use go")}},
			{Role: RoleUser, Blocks: []Block{text("hi")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"[system instructions]\nbe brief"},{"type":"text","text":"[developer instructions]\nuse go"},{"type":"text","text":"hi"}]}`}},
		{"the assistant first", []Message{
			{Role: RoleAssistant, Blocks: []Block{text("hello")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"` + ContinuesNote + `"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"hello"}]}`}},
		{"results in front of a merged turn", []Message{
			{Role: RoleUser, Blocks: []Block{text("go")}},
			{Role: RoleAssistant, Blocks: []Block{call("a", `{"x":1}`), call("b", `[1]`), call("c", `nope`), call("d", `{}`)}},
			{Role: RoleTool, Blocks: []Block{result("a"), text("note")}},
			{Role: RoleUser, Blocks: []Block{text("and")}},
			{Role: RoleTool, Blocks: []Block{result("b"), result("c")}},
			{Role: RoleTool, Blocks: []Block{result("d")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"go"}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"sh","input":{"x":1}},{"type":"tool_use","id":"b","name":"sh","input":{"input":"[1]"}},{"type":"tool_use","id":"c","name":"sh","input":{"input":"nope"}},{"type":"tool_use","id":"d","name":"sh","input":{}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ra"},{"type":"tool_result","tool_use_id":"b","content":"rb"},{"type":"tool_result","tool_use_id":"c","content":"rc"},{"type":"tool_result","tool_use_id":"d","content":"rd"},{"type":"text","text":"note"},{"type":"text","text":"and"}]}`}},
		{"an error result", []Message{
			{Role: RoleTool, Blocks: []Block{{Kind: BlockToolResult, ID: "a", Text: "bad", IsError: true}}},
		}, []string{`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"bad","is_error":true}]}`}},
		{"thinking and images as written", []Message{
			{Role: RoleUser, Blocks: []Block{{Kind: BlockThinking, Verbatim: thinking}, {Kind: BlockImage, Text: image},
				{Kind: BlockImage, Text: `{"type":"image_url","image_url":{"url":"u"}}`}}},
			{Role: RoleAssistant, Blocks: []Block{{Kind: BlockThinking, Verbatim: thinking}, {Kind: BlockThinking, Text: "no signature"}, text("ok")}},
		}, []string{`{"role":"user","content":[` + image + `]}`, `{"role":"assistant","content":[` + thinking + `,{"type":"text","text":"ok"}]}`}},
		{"nothing to read", []Message{
			{Role: RoleUser, Blocks: []Block{text("hi")}},
			{Role: RoleAssistant, Blocks: []Block{{Kind: BlockOpaque, Text: "{}"}}},
			{Role: RoleAssistant, Summary: true, Blocks: []Block{{Kind: BlockOpaque, Text: "{}"}}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"hi"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"` + OpaqueSummaryNote + `"}]}`}},
		{"as written when alone", []Message{
			{Role: RoleUser, Blocks: []Block{text("a")}, Raw: []byte(`{"role":"user","content":"a"}`), Dialect: DialectAnthropic},
			{Role: RoleAssistant, Blocks: []Block{text("b")}, Raw: []byte(`{"role":"assistant","content":"b"}`), Dialect: DialectOpenAI},
			{Role: RoleUser, Blocks: []Block{text("c")}, Raw: []byte(`{"role":"user","content":"c"}`), Dialect: DialectAnthropic},
			{Role: RoleUser, Blocks: []Block{text("d")}, Raw: []byte(`{"role":"user","content":"d"}`), Dialect: DialectAnthropic},
		}, []string{`{"role":"user","content":"a"}`, `{"role":"assistant","content":[{"type":"text","text":"b"}]}`,
			`{"role":"user","content":[{"type":"text","text":"c"},{"type":"text","text":"d"}]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := anthropicLines(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				got = append(got, string(l))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

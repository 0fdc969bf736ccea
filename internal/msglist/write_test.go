package msglist

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// spec builds messages from lines "role: block block ...", a block being text, call:ID (call:-
// for a call without an id), result:ID, or raw (the message has its Raw).
func spec(lines ...string) []conv.Message {
	var ms []conv.Message
	for _, l := range lines {
		role, blocks, _ := strings.Cut(l, ":")
		m := conv.Message{Role: conv.Role(role)}
		for _, b := range strings.Fields(blocks) {
			kind, id, _ := strings.Cut(b, ":")
			if id == "-" {
				id = ""
			}
			switch kind {
			case "text":
				m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockText, Text: "t"})
			case "call":
				m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockToolCall, ID: id, Name: "sh", Args: "{}"})
			case "result":
				m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockToolResult, ID: id, Text: "r"})
			case "raw":
				m.Raw = []byte(`{}`)
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// unspec writes messages back as spec lines, a placeholder result as result:ID!.
func unspec(ms []conv.Message) []string {
	var out []string
	for _, m := range ms {
		l := string(m.Role) + ":"
		for _, b := range m.Blocks {
			switch b.Kind {
			case conv.BlockText:
				l += " text"
			case conv.BlockToolCall:
				l += " call:" + b.ID
			case conv.BlockToolResult:
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
	call := func(id, args string) conv.Block {
		return conv.Block{Kind: conv.BlockToolCall, ID: id, Name: "sh", Args: args}
	}
	result := func(id string) conv.Block { return conv.Block{Kind: conv.BlockToolResult, ID: id, Text: "r" + id} }
	text := func(s string) conv.Block { return conv.Block{Kind: conv.BlockText, Text: s} }
	const thinking = `{"type":"thinking","thinking":"hm","signature":"sig"}`
	const image = `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}`
	for _, tc := range []struct {
		name string
		in   []conv.Message
		want []string
	}{
		{"instructions are the user's", []conv.Message{
			{Role: conv.RoleSystem, Blocks: []conv.Block{text("be brief")}},
			{Role: conv.RoleDeveloper, Blocks: []conv.Block{text("use go")}},
			{Role: conv.RoleUser, Blocks: []conv.Block{text("hi")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"[system instructions]\nbe brief"},{"type":"text","text":"[developer instructions]\nuse go"},{"type":"text","text":"hi"}]}`}},
		{"the assistant first", []conv.Message{
			{Role: conv.RoleAssistant, Blocks: []conv.Block{text("hello")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"` + ContinuesNote + `"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"hello"}]}`}},
		{"results in front of a merged turn", []conv.Message{
			{Role: conv.RoleUser, Blocks: []conv.Block{text("go")}},
			{Role: conv.RoleAssistant, Blocks: []conv.Block{call("a", `{"x":1}`), call("b", `[1]`), call("c", `nope`), call("d", `{}`)}},
			{Role: conv.RoleTool, Blocks: []conv.Block{result("a"), text("note")}},
			{Role: conv.RoleUser, Blocks: []conv.Block{text("and")}},
			{Role: conv.RoleTool, Blocks: []conv.Block{result("b"), result("c")}},
			{Role: conv.RoleTool, Blocks: []conv.Block{result("d")}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"go"}]}`,
			`{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"sh","input":{"x":1}},{"type":"tool_use","id":"b","name":"sh","input":{"input":"[1]"}},{"type":"tool_use","id":"c","name":"sh","input":{"input":"nope"}},{"type":"tool_use","id":"d","name":"sh","input":{}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ra"},{"type":"tool_result","tool_use_id":"b","content":"rb"},{"type":"tool_result","tool_use_id":"c","content":"rc"},{"type":"tool_result","tool_use_id":"d","content":"rd"},{"type":"text","text":"note"},{"type":"text","text":"and"}]}`}},
		{"an error result", []conv.Message{
			{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "a", Text: "bad", IsError: true}}},
		}, []string{`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"bad","is_error":true}]}`}},
		{"thinking and images as written", []conv.Message{
			{Role: conv.RoleUser, Blocks: []conv.Block{{Kind: conv.BlockThinking, Verbatim: thinking}, {Kind: conv.BlockImage, Text: image},
				{Kind: conv.BlockImage, Text: `{"type":"image_url","image_url":{"url":"u"}}`}}},
			{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockThinking, Verbatim: thinking}, {Kind: conv.BlockThinking, Text: "no signature"}, text("ok")}},
		}, []string{`{"role":"user","content":[` + image + `]}`, `{"role":"assistant","content":[` + thinking + `,{"type":"text","text":"ok"}]}`}},
		{"nothing to read", []conv.Message{
			{Role: conv.RoleUser, Blocks: []conv.Block{text("hi")}},
			{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockOpaque, Text: "{}"}}},
			{Role: conv.RoleAssistant, Summary: true, Blocks: []conv.Block{{Kind: conv.BlockOpaque, Text: "{}"}}},
		}, []string{`{"role":"user","content":[{"type":"text","text":"hi"}]}`,
			`{"role":"assistant","content":[{"type":"text","text":"` + OpaqueSummaryNote + `"}]}`}},
		{"as written when alone", []conv.Message{
			{Role: conv.RoleUser, Blocks: []conv.Block{text("a")}, Raw: []byte(`{"role":"user","content":"a"}`), Dialect: conv.DialectAnthropic},
			{Role: conv.RoleAssistant, Blocks: []conv.Block{text("b")}, Raw: []byte(`{"role":"assistant","content":"b"}`), Dialect: conv.DialectOpenAI},
			{Role: conv.RoleUser, Blocks: []conv.Block{text("c")}, Raw: []byte(`{"role":"user","content":"c"}`), Dialect: conv.DialectAnthropic},
			{Role: conv.RoleUser, Blocks: []conv.Block{text("d")}, Raw: []byte(`{"role":"user","content":"d"}`), Dialect: conv.DialectAnthropic},
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

// FuzzOpenAILine: the hand-written encoder gives exactly encoding/json's bytes.
func FuzzOpenAILine(f *testing.F) {
	f.Add("user", "hello \"world\"\n\t<&>", "call_1", "bash", `{"cmd":"ls"}`, "result \x00\x1f \u2028 \xff")
	f.Fuzz(func(t *testing.T, role, text, id, name, args, result string) {
		m := conv.Message{Role: conv.Role(role), Blocks: []conv.Block{
			{Kind: conv.BlockText, Text: text},
			{Kind: conv.BlockToolCall, ID: id, Name: name, Args: args},
		}}
		got, err := OpenAILine(m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := conv.Marshal(openAIMsg{Role: role, Content: text, ToolCalls: []openAICall{{ID: id, Type: "function", Function: openAIFunction{Name: name, Arguments: args}}}})
		if role != "tool" && !bytes.Equal(got[len(got)-1], want) {
			t.Fatalf("got  %s\nwant %s", got[len(got)-1], want)
		}
		tm := conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: id, Text: result}}}
		got, _ = OpenAILine(tm)
		want, _ = conv.Marshal(struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			Content    string `json:"content"`
		}{"tool", id, result})
		if !bytes.Equal(got[0], want) {
			t.Fatalf("tool: got %s\nwant %s", got[0], want)
		}
	})
}

// Repair gives ids to calls that lack one in its output, not in the caller's messages.
func TestRepairLeavesItsInputAlone(t *testing.T) {
	in := []conv.Message{
		{Role: conv.RoleUser, Blocks: []conv.Block{{Kind: conv.BlockText, Text: "go"}}},
		{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockToolCall, Name: "sh", Args: "{}"}}},
	}
	out, _ := PairToolCalls(in)
	if in[1].Blocks[0].ID != "" {
		t.Fatalf("Repair changed its input: id %q", in[1].Blocks[0].ID)
	}
	if out[1].Blocks[0].ID == "" {
		t.Fatal("Repair gave no id to the call")
	}
}

// TestWriteOpenAIStreamsLongResults: the openai output of messages with tool results long
// enough to be streamed (streamResultFrom) is byte for byte the lines OpenAILine builds,
// invalid UTF-8 and all, in the same order (results first, then the message's text and calls),
// and a raw openai message is still copied as written.
func TestWriteOpenAIStreamsLongResults(t *testing.T) {
	long := strings.Repeat("é🙂 \"q\" \\ \n\t\u2028 caf\xe9 \xff ", streamResultFrom/20+1)
	raw := append(append([]byte(`{"role":"tool","tool_call_id":"r1","content":"`), strings.Repeat("x\xff", streamResultFrom)...), `"}`...)
	ms := []conv.Message{
		{Role: conv.RoleUser, Blocks: []conv.Block{{Kind: conv.BlockText, Text: "hi"}}},
		{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockToolCall, ID: "c1", Name: "Read", Args: `{"p":1}`}, {Kind: conv.BlockToolCall, ID: "c2", Name: "Read", Args: `{}`}}},
		{Role: conv.RoleUser, Blocks: []conv.Block{
			{Kind: conv.BlockToolResult, ID: "c1", Text: long},
			{Kind: conv.BlockText, Text: "and a note \xfe"},
			{Kind: conv.BlockToolResult, ID: "c2\xff", Text: "short"},
			{Kind: conv.BlockToolCall, ID: "c3", Name: "n", Args: "{}"},
		}},
		{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "r1", Text: long}}, Raw: raw, Dialect: conv.DialectOpenAI},
		{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "c4", Text: long[:streamResultFrom]}}},
		{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockText, Text: "done"}}},
	}
	lines, err := openAILines(ms)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, l := range lines {
		v, _ := jsonl.AppendValidUTF8(nil, l)
		want.Write(v)
		want.WriteByte('\n')
	}
	var got bytes.Buffer
	if err := WriteMessages(&got, ms, AsOpenAI); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		g, w := bufio.NewScanner(&got), bufio.NewScanner(&want)
		g.Buffer(nil, 1<<26)
		w.Buffer(nil, 1<<26)
		for i := 1; g.Scan() && w.Scan(); i++ {
			if !bytes.Equal(g.Bytes(), w.Bytes()) {
				t.Fatalf("line %d differs: got %.200s…, want %.200s…", i, g.Bytes(), w.Bytes())
			}
		}
		t.Fatalf("got %d bytes, want %d", got.Len(), want.Len())
	}
}

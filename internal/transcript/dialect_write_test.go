package transcript

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/tidwall/gjson"
)

// validOpenAI checks what the Chat Completions API checks: every tool message answers a call of
// the assistant message before the run of tool messages it belongs to; calls are answered
// before the next non-tool message, except at the very end.
func validOpenAI(t *testing.T, name string, out []byte) {
	t.Helper()
	open := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<28)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if !gjson.Valid(l) {
			t.Fatalf("%s:%d: invalid JSON", name, n)
		}
		role := gjson.Get(l, "role").String()
		switch role {
		case "tool":
			id := gjson.Get(l, "tool_call_id").String()
			if !open[id] {
				t.Fatalf("%s:%d: tool result %q answers no open call", name, n, id)
			}
			delete(open, id)
		case "assistant", "user", "system", "developer":
			if len(open) > 0 {
				t.Fatalf("%s:%d: %s message while calls %v are unanswered", name, n, role, open)
			}
			gjson.Get(l, "tool_calls").ForEach(func(_, c gjson.Result) bool {
				open[c.Get("id").String()] = true
				return true
			})
		default:
			t.Fatalf("%s:%d: role %q", name, n, role)
		}
	}
}

// validAnthropic: roles alternate starting with user; every tool_result answers a tool_use of
// the message right before; every tool_use is answered in the next message (except at the end).
func validAnthropic(t *testing.T, name string, out []byte) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<28)
	prevRole := ""
	var prevCalls map[string]bool
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		role := gjson.Get(l, "role").String()
		if n == 1 && role != "user" {
			t.Fatalf("%s: first message is %s", name, role)
		}
		if role == prevRole || (role != "user" && role != "assistant") {
			t.Fatalf("%s:%d: role %s after %s", name, n, role, prevRole)
		}
		calls := map[string]bool{}
		answered := map[string]bool{}
		gjson.Get(l, "content").ForEach(func(_, b gjson.Result) bool {
			switch b.Get("type").String() {
			case "tool_use":
				calls[b.Get("id").String()] = true
			case "tool_result":
				id := b.Get("tool_use_id").String()
				if !prevCalls[id] {
					t.Fatalf("%s:%d: tool_result %q answers nothing in the previous message", name, n, id)
				}
				answered[id] = true
			case "text":
				if b.Get("text").String() == "" {
					t.Fatalf("%s:%d: empty text block", name, n)
				}
			}
			return true
		})
		for id := range prevCalls {
			if !answered[id] {
				t.Fatalf("%s:%d: tool_use %q not answered", name, n, id)
			}
		}
		prevRole, prevCalls = role, calls
	}
}

// TestLoadOutputIsAPIValid loads every fixture and sample, repairs it and checks the output
// against each API's rules.
func TestLoadOutputIsAPIValid(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/fixtures/*.jsonl")
	samples, _ := filepath.Glob(filepath.Join(samplesDir, "*", "*.jsonl"))
	files = append(files, samples...)
	for _, f := range files {
		_, msgs, err := LoadFile(f, Options{})
		if err != nil {
			if _, serr := os.Stat(f); serr == nil && filepath.Base(f) != "bom-crlf-bad.jsonl" {
				t.Errorf("%s: %v", f, err)
			}
			continue
		}
		fixed, _ := PairToolCalls(msgs)
		for _, as := range []OutputDialect{AsOpenAI, AsAnthropic} {
			var buf bytes.Buffer
			if err := WriteMessages(&buf, fixed, as); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if as == AsOpenAI {
				validOpenAI(t, f, buf.Bytes())
			} else {
				validAnthropic(t, f, buf.Bytes())
			}
		}
	}
}

// FuzzOpenAILine: the hand-written encoder gives exactly encoding/json's bytes.
func FuzzOpenAILine(f *testing.F) {
	f.Add("user", "hello \"world\"\n\t<&>", "call_1", "bash", `{"cmd":"ls"}`, "result \x00\x1f \u2028 \xff")
	f.Fuzz(func(t *testing.T, role, text, id, name, args, result string) {
		m := Message{Role: Role(role), Blocks: []Block{
			{Kind: BlockText, Text: text},
			{Kind: BlockToolCall, ID: id, Name: name, Args: args},
		}}
		got, err := OpenAILine(m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := conv.Marshal(openAIMsg{Role: role, Content: text, ToolCalls: []openAICall{{ID: id, Type: "function", Function: openAIFunction{Name: name, Arguments: args}}}})
		if role != "tool" && !bytes.Equal(got[len(got)-1], want) {
			t.Fatalf("got  %s\nwant %s", got[len(got)-1], want)
		}
		tm := Message{Role: RoleTool, Blocks: []Block{{Kind: BlockToolResult, ID: id, Text: result}}}
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
	in := []Message{
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "go"}}},
		{Role: RoleAssistant, Blocks: []Block{{Kind: BlockToolCall, Name: "sh", Args: "{}"}}},
	}
	out, _ := PairToolCalls(in)
	if in[1].Blocks[0].ID != "" {
		t.Fatalf("Repair changed its input: id %q", in[1].Blocks[0].ID)
	}
	if out[1].Blocks[0].ID == "" {
		t.Fatal("Repair gave no id to the call")
	}
}

package nanocoder_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ctxc/ctxc/internal/agent/nanocoder"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestNanocoderFixtures: the sessions Nanocoder 1.30.0 wrote (cmd's TestAgentNanocoder*, which
// compare `ctxc load` with what it sends on resume), as internal/agent/nanocoder/nanocodersess exports them.
func TestNanocoderFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		user, assistant, tool, calls int
		compactions, effective       int
		texts                        []string // the effective context's texts, in order
	}{
		{"nanocoder-1.30-tool-resumed.jsonl", 2, 3, 1, 1, 0, 6,
			[]string{"Look at the project [use the tool]", "", "hello from notes", "Done.", "Second question", "OK"}},
		// Its auto-compact summarized the first prompt and kept the call, its result and the answer.
		{"nanocoder-1.30-own-compaction.jsonl", 1, 2, 1, 1, 1, 4,
			[]string{"<conversation-summary>\n<state_snapshot>", "", "hello from notes", "Done."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", tc.name), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatNanocoder || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != tc.compactions ||
				st.EffMessages != tc.effective {
				t.Errorf("stats: %+v", st)
			}
			if len(msgs) != len(tc.texts) {
				t.Fatalf("%d messages, want %d: %v", len(msgs), len(tc.texts), msgs)
			}
			for i, m := range msgs {
				text := m.TextContent()
				if m.Role == transcript.RoleTool {
					text = m.Blocks[0].Text // (a result's text)
				}
				if !strings.HasPrefix(text, tc.texts[i]) {
					t.Errorf("message %d: %q, want it to start with %q", i, text, tc.texts[i])
				}
			}
			if tc.compactions > 0 && !msgs[0].Summary {
				t.Errorf("the summary is not marked as one: %+v", msgs[0])
			}
		})
	}
}

// TestNanocoderContext: what Nanocoder sends of the messages it stores.
func TestNanocoderContext(t *testing.T) {
	const head = `{"type":"nanocoder","sessionId":"s","messages":9}` + "\n"
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // role: text (a result: its text; a call: its name)
	}{
		{"a result of no call before it is left out",
			[]string{`{"role":"user","content":"a"}`, `{"role":"tool","tool_call_id":"x","name":"read_file","content":"orphan"}`,
				`{"role":"assistant","content":"b"}`},
			[]string{"user: a", "assistant: b"}},
		{"system messages join its system prompt; an empty answer with no call is none",
			[]string{`{"role":"system","content":"sys"}`, `{"role":"user","content":"a"}`, `{"role":"assistant","content":""}`},
			[]string{"user: a"}},
		{"a call, its result, the answer after it; reasoning is not sent",
			[]string{`{"role":"user","content":"a"}`,
				`{"role":"assistant","content":"","reasoning":"hmm","tool_calls":[{"id":"c1","function":{"name":"read_file","arguments":{"path":"n"}}}]}`,
				`{"role":"tool","tool_call_id":"c1","name":"read_file","content":"text"}`, `{"role":"assistant","content":"done"}`},
			[]string{"user: a", "assistant: call read_file", "tool: text", "assistant: done"}},
		{"a result's structuredContent is sent as its JSON",
			[]string{`{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"mcp","arguments":{}}}]}`,
				`{"role":"tool","tool_call_id":"c1","name":"mcp","content":"plain","structuredContent":{"a":1}}`},
			[]string{"assistant: call mcp", `tool: {"a":1}`}},
		{"any other role is sent as a user's",
			[]string{`{"role":"developer","content":"d"}`},
			[]string{"user: d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, msgs, err := loadNanocoderText(t, head+strings.Join(tc.lines, "\n")+"\n")
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Format != transcript.FormatNanocoder {
				t.Fatalf("format %q", res.Stats.Format)
			}
			var got []string
			for _, m := range msgs {
				for _, b := range m.Blocks {
					switch b.Kind {
					case transcript.BlockToolCall:
						got = append(got, string(m.Role)+": call "+b.Name)
					default:
						got = append(got, string(m.Role)+": "+b.Text)
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestNanocoderCap: Nanocoder sends its last nanocoder.MaxMessages messages, a cut that would
// start on a tool result moved back to the call before it.
func TestNanocoderCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"nanocoder","sessionId":"s","messages":1003}` + "\n")
	b.WriteString(`{"role":"user","content":"first"}` + "\n")
	b.WriteString(`{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"name":"read_file","arguments":{}}}]}` + "\n")
	b.WriteString(`{"role":"tool","tool_call_id":"c1","name":"read_file","content":"r1"}` + "\n")
	b.WriteString(`{"role":"tool","tool_call_id":"c1","name":"read_file","content":"r2"}` + "\n")
	for i := 0; i < nanocoder.MaxMessages-2; i++ {
		b.WriteString(`{"role":"user","content":"u"}` + "\n")
	}
	res, msgs, err := loadNanocoderText(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	// 1002 messages: the cut at the 3rd (a result) moves to the call, the 2nd
	if len(msgs) != nanocoder.MaxMessages+1 || msgs[0].Blocks[0].Kind != transcript.BlockToolCall || res.Stats.Messages.User != nanocoder.MaxMessages-1 {
		t.Errorf("%d messages, the first %+v; stats %+v", len(msgs), msgs[0], res.Stats.Messages)
	}
}

// TestNanocoderCut: a long tool result is cut as truncateToolResult cuts it, in UTF-16 code units.
func TestNanocoderCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
	}{
		{"short", "abc"},
		{"at the limit", strings.Repeat("a", nanocoder.MaxResultChars)},
		{"ASCII past it", strings.Repeat("0123456789", 3000)},
		{"astral past it", strings.Repeat("😀x", 9000)},
		{"bytes past it, code units not", strings.Repeat("é", 15000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := nanocoder.Cut(tc.in)
			n := len(utf16.Encode([]rune(tc.in)))
			if n <= nanocoder.MaxResultChars {
				if got != tc.in {
					t.Errorf("cut a result of %d code units", n)
				}
				return
			}
			if units := len(utf16.Encode([]rune(got))); units != nanocoder.MaxResultChars {
				t.Errorf("%d code units after the cut, want %d", units, nanocoder.MaxResultChars)
			}
			marker := "\n... [Output truncated: " + strconv.Itoa(n) + " characters total;"
			if !strings.Contains(got, marker) {
				t.Errorf("no marker %q", marker)
			}
			head, _, _ := strings.Cut(got, "\n... [Output truncated")
			// (a pair of surrogates cut in two: its half is U+FFFD, as Go decodes what JSON.stringify
			// writes of it, "\ud83d")
			if !strings.HasPrefix(tc.in, strings.TrimSuffix(head, "\uFFFD")) {
				t.Errorf("the head is not the text's start")
			}
		})
	}
}

// loadNanocoderText loads an export's text from a file.
func loadNanocoderText(t *testing.T, text string) (*transcript.Result, []transcript.Message, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return transcript.LoadFile(p, transcript.Options{})
}

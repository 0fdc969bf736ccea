package sweagent

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// load reads export lines with the reader alone, as the scanner would, and gives the context's
// messages as role:text.
func load(t *testing.T, lines []string) ([]string, *conv.Stats) {
	t.Helper()
	r := NewReader()
	st := &conv.Stats{}
	var off int64
	for i, s := range lines {
		l := &conv.Line{Line: jsonl.Line{Num: i + 1, Offset: off, Size: len(s) + 1}}
		r.Add(l, gjson.Parse(s), st)
		off += int64(len(s) + 1)
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	var out []string
	for _, ref := range r.Finish(st) {
		ms, err := r.Materialize(data[ref.Off:ref.Off+int64(ref.Size)-1], ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			var b bytes.Buffer
			b.WriteString(string(m.Role) + ":")
			for _, bl := range m.Blocks {
				switch bl.Kind {
				case conv.BlockToolCall:
					b.WriteString("[" + bl.Name + " " + bl.Args + "]")
				case conv.BlockToolResult:
					b.WriteString("<" + bl.ID + ">" + bl.Text)
				default:
					b.WriteString(bl.Text)
				}
			}
			out = append(out, b.String())
		}
	}
	return out, st
}

// TestRules: what SWE-agent sends of its history, rule by rule.
func TestRules(t *testing.T) {
	obs := func(id, text string, extra string) string {
		return `{"role":"tool","content":` + quote(text) + `,"agent":"main","message_type":"observation","tool_call_ids":["` + id + `"]` + extra + `}`
	}
	call := func(id string) string {
		return `{"role":"assistant","content":"","agent":"main","message_type":"action","tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}`
	}
	head := func(procs string, sysUser bool) string {
		s := `{"type":"swe-agent","sessionId":"i1","messages":9`
		if procs != "" {
			s += `,"historyProcessors":` + procs
		}
		if sysUser {
			s += `,"systemAsUser":true`
		}
		return s + `}`
	}
	base := []string{
		`{"role":"system","content":"sys","agent":"main","message_type":"system_prompt"}`,
		`{"role":"user","content":"demo","agent":"main","message_type":"observation","is_demo":true}`,
		`{"role":"user","content":"task\nline2","agent":"main","message_type":"observation"}`,
		call("a"), obs("a", "one\r\ntwo\rthree", ""),
		call("b"), obs("b", "b1\nb2\n", `,"tags":["keep_output"]`),
		call("c"), obs("c", "c1", ""),
		call("d"), obs("d", "d1", `,"tags":["remove_output"]`),
		call("e"), obs("e", "e1", ""),
		`{"role":"user","content":"sub","agent":"subroutine","message_type":"observation"}`,
	}
	cases := []struct {
		name    string
		header  string
		pick    []int // messages of the context (index in base: i+1), with their text
		want    []string
		wantEff int
	}{
		{"no processors: the history as it is, the subroutine's message left out", head("", false), nil,
			[]string{"system:sys", "user:demo", "user:task\nline2", "assistant:[bash {\"command\":\"ls\"}]", "tool:<a>one\r\ntwo\rthree"}, 13},
		{"last 2 observations: the task kept, the older ones elided, tags heeded",
			head(`[{"type":"last_n_observations","n":2}]`, false), nil,
			[]string{"system:sys", "user:demo", "user:task\nline2", "assistant:[bash {\"command\":\"ls\"}]",
				"tool:<a>Old environment output: (3 lines omitted)"}, 13},
		{"system as user", head(`[{"type":"cache_control","last_n_messages":2}]`, true), nil,
			[]string{"user:sys", "user:demo", "user:task\nline2", "assistant:[bash {\"command\":\"ls\"}]", "tool:<a>one\r\ntwo\rthree"}, 13},
	}
	for _, c := range cases {
		got, st := load(t, append([]string{c.header}, base...))
		if len(got) != c.wantEff || st.EffMessages != 0 && st.EffMessages != c.wantEff {
			t.Errorf("%s: %d messages %q", c.name, len(got), got)
			continue
		}
		if strings.Join(got[:len(c.want)], "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got[:len(c.want)], c.want)
		}
		users := 3 // (the demonstration, the task, the subroutine's)
		if strings.Contains(c.name, "system as user") {
			users = 4
		}
		if st.Messages.User != users || st.ToolCalls != 5 || st.ToolResults != 5 {
			t.Errorf("%s: counted %+v", c.name, st.Messages)
		}
	}
	got, _ := load(t, append([]string{head(`[{"type":"last_n_observations","n":2}]`, false)}, base...))
	want := []string{"tool:<b>b1\nb2\n", "tool:<c>Old environment output: (1 lines omitted)",
		"tool:<d>Old environment output: (1 lines omitted)", "tool:<e>e1"}
	for i, w := range want {
		if g := got[6+2*i]; g != w {
			t.Errorf("observation %c: %q, want %q", 'b'+i, g, w)
		}
	}
	// polling 4: 6 observations (the task one of them), (6/4)*4-2 = 2: only a's is elided.
	got, _ = load(t, append([]string{head(`[{"type":"last_n_observations","n":2,"polling":4}]`, false)}, base...))
	if got[4] != "tool:<a>Old environment output: (3 lines omitted)" || got[8] != "tool:<c>c1" {
		t.Errorf("polling 4: %q, %q", got[4], got[8])
	}
}

// TestSplitLines: Python's str.splitlines, counted.
func TestSplitLines(t *testing.T) {
	for s, n := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\r\nb\r\n": 2, "a\rb": 2, "\n\n": 2,
		"a\u2028b\x0cc": 3, "a\x85": 1} {
		if got := splitLines(s); got != n {
			t.Errorf("%q: %d lines, want %d", s, got, n)
		}
	}
}

// TestRecord: grep sees each history message on its own, the header none.
func TestRecord(t *testing.T) {
	if r := Record(jsonl.Value(`{"type":"swe-agent","sessionId":"x","messages":1}`)); len(r.Messages) != 0 {
		t.Errorf("header: %+v", r)
	}
	r := Record(jsonl.Value(`{"role":"tool","content":"out","tool_call_ids":["a"]}`))
	if len(r.Messages) != 1 || r.Messages[0].Blocks[0].Text != "out" || r.Messages[0].Blocks[0].ID != "a" {
		t.Errorf("tool: %+v", r)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

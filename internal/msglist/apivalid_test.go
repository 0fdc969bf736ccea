package msglist_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/transcript"
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
	samples, _ := filepath.Glob(filepath.Join("../../../shared/samples", "*", "*.jsonl"))
	files = append(files, samples...)
	for _, f := range files {
		_, msgs, err := transcript.LoadFile(f, transcript.Options{})
		if err != nil {
			if _, serr := os.Stat(f); serr == nil && filepath.Base(f) != "bom-crlf-bad.jsonl" {
				t.Errorf("%s: %v", f, err)
			}
			continue
		}
		fixed, _ := msglist.PairToolCalls(msgs)
		for _, as := range []msglist.OutputDialect{msglist.AsOpenAI, msglist.AsAnthropic} {
			var buf bytes.Buffer
			if err := msglist.WriteMessages(&buf, fixed, as); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if as == msglist.AsOpenAI {
				validOpenAI(t, f, buf.Bytes())
			} else {
				validAnthropic(t, f, buf.Bytes())
			}
		}
	}
}

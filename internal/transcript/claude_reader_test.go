package transcript

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// claudeUserLine is a Claude Code user record; parent "" is null.
func claudeUserLine(uuid, parent, text string) string {
	return fmt.Sprintf(`{"type":"user","uuid":%q,"parentUuid":%s,"message":{"role":"user","content":%q}}`+"\n", uuid, claudeParent(parent), text)
}

// claudeAssistantLine is a Claude Code assistant record of one text block of response id.
func claudeAssistantLine(uuid, parent, id, text string) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"parentUuid":%s,"message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}}}`+"\n",
		uuid, claudeParent(parent), id, text)
}

func claudeParent(parent string) string {
	if parent == "" {
		return "null"
	}
	return fmt.Sprintf("%q", parent)
}

// effectiveContext scans data (within a deadline: a damaged chain must not make the reader
// spin) and returns its effective context's messages as line:text.
func effectiveContext(t *testing.T, data string) []string {
	t.Helper()
	type result struct {
		msgs []string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		res, err := scanLines(strings.NewReader(data), "f", Options{Format: FormatClaude})
		if err != nil {
			done <- result{err: err}
			return
		}
		msgs, err := res.Messages(strings.NewReader(data))
		view := []string{}
		for _, m := range msgs {
			view = append(view, fmt.Sprintf("%d:%s", m.Line, m.TextContent()))
		}
		done <- result{view, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.msgs
	case <-time.After(10 * time.Second):
		t.Fatal("the context walk does not end")
		return nil
	}
}

// TestClaudeContextWalk: the parentUuid walk back from the newest message ends at a root, at a
// parent the file does not hold (a resumed session), on a parent cycle (a damaged file), and
// gives nothing when a preserved-messages compaction leaves no message; a block of a response
// on the chain that such a compaction dropped is not put back.
func TestClaudeContextWalk(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want []string
	}{
		{name: "root", data: claudeUserLine("u1", "", "hi") + claudeAssistantLine("a1", "u1", "m1", "yo"), want: []string{"1:hi", "2:yo"}},
		{name: "parent in another file",
			data: claudeUserLine("x1", "", "an earlier chain") + claudeUserLine("u2", "gone", "resumed") + claudeAssistantLine("a3", "u2", "m3", "yo"),
			want: []string{"2:resumed", "3:yo"}},
		{name: "parent cycle",
			data: claudeUserLine("x1", "", "before") + claudeAssistantLine("a1", "u1", "m1", "yo") + claudeUserLine("u1", "a1", "hi"),
			want: []string{"2:yo", "3:hi"}},
		{name: "compaction keeps no message",
			data: claudeUserLine("u1", "", "hi") +
				`{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"compactMetadata":{"preservedMessages":{"anchorUuid":"s1","uuids":["b1"]}}}` + "\n",
			want: []string{}},
		{name: "compaction drops a block of a kept response",
			data: claudeUserLine("u1", "", "hi") + claudeAssistantLine("a1", "u1", "m1", "one") + claudeAssistantLine("a1b", "a1", "m1", "two") +
				`{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"compactMetadata":{"preservedMessages":{"anchorUuid":"s1","uuids":["a1"]}}}` + "\n" +
				strings.Replace(claudeUserLine("s1", "b1", "summary"), `{"type":"user",`, `{"type":"user","isCompactSummary":true,`, 1) +
				claudeUserLine("u2", "s1", "next") + claudeAssistantLine("a2", "u2", "m2", "yo"),
			want: []string{"5:summary", "2:one", "6:next", "7:yo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectiveContext(t, tc.data); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("effective context = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClaudeObserve: Options.Observe sees every main-chain message in file order (each block of
// a split response), the sidechain's only while the file has shown no main-chain message, and
// gets copies: what it changes does not reach the statistics.
func TestClaudeObserve(t *testing.T) {
	side := func(line string) string {
		return strings.Replace(line, `{"type":`, `{"isSidechain":true,"type":`, 1)
	}
	for _, tc := range []struct {
		name string
		data string
		want []string // line:role of each message observed
	}{
		{name: "main chain",
			data: claudeUserLine("u1", "", "hi") + claudeAssistantLine("a1", "u1", "m1", "one") + claudeAssistantLine("a2", "a1", "m1", "two"),
			want: []string{"1:user", "2:assistant", "3:assistant"}},
		{name: "subagent file",
			data: side(claudeUserLine("s1", "", "task")) + side(claudeAssistantLine("s2", "s1", "m1", "done")),
			want: []string{"1:user", "2:assistant"}},
		{name: "sidechain after the main chain",
			data: side(claudeUserLine("s1", "", "task")) + claudeUserLine("u1", "", "hi") + side(claudeAssistantLine("s2", "s1", "m1", "done")) +
				claudeAssistantLine("a1", "u1", "m2", "yo"),
			want: []string{"1:user", "2:user", "4:assistant"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := scanLines(strings.NewReader(tc.data), "f", Options{Format: FormatClaude})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			observe := func(m *Message, l *jsonl.Line) {
				got = append(got, fmt.Sprintf("%d:%s", l.Num, m.Role))
				m.Role, m.Blocks, m.MsgID = RoleTool, nil, "" // a copy: the scan must not see this
			}
			res, err := scanLines(strings.NewReader(tc.data), "f", Options{Format: FormatClaude, Observe: observe})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("observed %v, want %v", got, tc.want)
			}
			if a, b := statsView(plain.Stats), statsView(res.Stats); !reflect.DeepEqual(a, b) {
				t.Errorf("stats with an observer differ:\n%+v\n%+v", b, a)
			}
		})
	}
}

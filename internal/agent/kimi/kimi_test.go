package kimi_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/kimi"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Lines of a Kimi Code CLI log, as its wire.jsonl writes them.
func msg(role, kind, text, id, owner string) string {
	origin := ""
	if kind != "" {
		origin = fmt.Sprintf(`,"origin":{"kind":%q,"ownerPromptId":%q}`, kind, owner)
	}
	return fmt.Sprintf(`{"type":"context.append_message","agentId":"main","message":{"role":%q,"content":[{"type":"text","text":%q}],"toolCalls":[],"id":%q%s},"time":1}`,
		role, text, id, origin)
}

func typed(text string) string    { return msg("user", "user", text, "", "") }
func injected(text string) string { return msg("user", "injection", text, "", "") }

func loop(event string) string {
	return `{"type":"context.append_loop_event","agentId":"main","event":` + event + `,"time":1}`
}
func begin(step string) string {
	return loop(fmt.Sprintf(`{"type":"step.begin","uuid":%q,"turnId":"0","step":1}`, step))
}
func end(step, reason string) string {
	return loop(fmt.Sprintf(`{"type":"step.end","uuid":%q,"finishReason":%q}`, step, reason))
}
func part(step, text string) string {
	return loop(fmt.Sprintf(`{"type":"content.part","stepUuid":%q,"part":{"type":"text","text":%q}}`, step, text))
}
func call(step, id, name string) string {
	return loop(fmt.Sprintf(`{"type":"tool.call","stepUuid":%q,"toolCallId":%q,"name":%q,"args":{"path":"notes.txt"}}`, step, id, name))
}
func result(id, result string) string {
	return loop(fmt.Sprintf(`{"type":"tool.result","toolCallId":%q,"result":%s}`, id, result))
}

const interrupted = kimi.ErrorStatus + "\nTool execution was interrupted before its result was recorded."

// TestKimiReloadRule: what ctxc loads of a log is the context Kimi Code CLI replays from it on
// resume and sends (its contextMemory and its request's projection).
func TestKimiReloadRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // each message's text starts so (a call: "call:ID", a result: its text)
	}{
		{"a step's calls, its result, its answer",
			[]string{typed("go"), begin("s1"), call("s1", "c1", "Read"), result("c1", `{"output":"hi","note":"<system>1 line</system>"}`),
				end("s1", "tool_use"), begin("s2"), part("s2", "Done."), end("s2", "end_turn")},
			[]string{"go", "call:c1", "hi\n<system>1 line</system>", "Done."}},
		{"a message while a call waits follows its interrupted result",
			[]string{typed("go"), begin("s1"), call("s1", "c1", "Read"), typed("later"), end("s1", "tool_use"), result("c1", `{"output":"late"}`)},
			[]string{"go", "call:c1", interrupted, "later"}},
		{"a log that ends with a call waiting: its step is settled as the resumed turn's next step does",
			[]string{typed("go"), begin("s1"), part("s1", "Let me look."), call("s1", "c1", "Read")},
			[]string{"go", "call:c1", interrupted}},
		{"a step with only blank text is dropped",
			[]string{typed("go"), begin("s1"), part("s1", "  "), end("s1", "end_turn"), typed("again")},
			[]string{"go\n\nagain"}},
		{"an interrupted step stays open until the next: adjacent answers are one message",
			[]string{typed("go"), begin("s1"), part("s1", "a"), end("s1", "interrupted"), part("s1", "b"), begin("s2"), part("s2", "c"), end("s2", "end_turn")},
			[]string{"go", "a\nb\nc"}},
		{"the wall time of a shell command, a failure's and an empty output's status lines",
			[]string{typed("go"), begin("s1"), call("s1", "c1", "Bash"), call("s1", "c2", "Read"), call("s1", "c3", "Read"),
				result("c1", `{"output":"out","durationMs":1234}`), result("c2", `{"output":"boom","isError":true}`),
				result("c3", `{"output":[{"type":"text","text":" "}]}`), end("s1", "tool_use")},
			[]string{"go", "call:c1", "Wall time: 1.234 seconds\nout", kimi.ErrorStatus + "\nboom", kimi.EmptyStatus}},
		{"typed messages are joined, not across an injection",
			[]string{typed("one"), typed("two"), injected("<system-reminder>\nx\n</system-reminder>"), typed("three")},
			[]string{"one\n\ntwo", "<system-reminder>", "three"}},
		{"a context opens with a user message",
			[]string{begin("s1"), part("s1", "hello"), end("s1", "end_turn"), typed("go")},
			[]string{"go"}},
		{"undo takes back the last turn and its prompt's injections",
			[]string{typed("one"), begin("s1"), part("s1", "A"), end("s1", "end_turn"),
				msg("user", "injection", "<system-reminder>\nmine\n</system-reminder>", "", "p2"), msg("user", "user", "two", "p2", ""),
				injected("<system-reminder>\nafter\n</system-reminder>"), begin("s2"), part("s2", "B"), end("s2", "end_turn"),
				`{"type":"context.undo","agentId":"main","count":1}`},
			[]string{"one", "A"}},
		{"an undo of more turns than there are does nothing",
			[]string{typed("one"), begin("s1"), part("s1", "A"), end("s1", "end_turn"), `{"type":"context.undo","agentId":"main","count":2}`},
			[]string{"one", "A"}},
		{"clear starts the context again",
			[]string{typed("one"), begin("s1"), part("s1", "A"), end("s1", "end_turn"), `{"type":"context.clear","agentId":"main"}`, typed("fresh")},
			[]string{"fresh"}},
		{"a compaction keeps the typed messages, then its summary and its note",
			[]string{typed("one"), injected("<system-reminder>\nx\n</system-reminder>"), begin("s1"), part("s1", "A"), end("s1", "end_turn"), typed("two"),
				`{"type":"context.apply_compaction","agentId":"main","summary":"S","contextSummary":"Prefix\nS","compactedCount":5,"keptUserMessageCount":2,"time":1}`,
				begin("s2"), part("s2", "B"), end("s2", "end_turn")},
			[]string{"one\n\ntwo", "Prefix\nS", kimi.ContinuationNote, "B"}},
		{"an older compaction: its summary, then what followed the messages it compacted",
			[]string{typed("one"), begin("s1"), part("s1", "A"), end("s1", "end_turn"), typed("two"), begin("s2"), part("s2", "B"), end("s2", "end_turn"),
				`{"type":"context.apply_compaction","agentId":"main","summary":"S","compactedCount":2}`},
			[]string{"S", "two", "B"}},
		{"a compaction without its count is refused, as Kimi refuses it",
			[]string{typed("one"), `{"type":"context.apply_compaction","agentId":"main","summary":"S"}`},
			[]string{"one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wire.jsonl")
			data := `{"type":"metadata","protocol_version":"1.5","created_at":1}` + "\n" + strings.Join(tc.lines, "\n") + "\n"
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, msgs, err := transcript.LoadFile(path, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Format != kimi.Format || res.Stats.EffMessages != len(msgs) {
				t.Errorf("format %s, effective %d of %d messages", res.Stats.Format, res.Stats.EffMessages, len(msgs))
			}
			var got []string
			for _, m := range msgs {
				got = append(got, text(m))
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d messages %q, want %q", len(got), got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("message %d: %q, want it to start with %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestKimiRecord: a line seen on its own (ctxc grep) gives what it adds to the conversation.
func TestKimiRecord(t *testing.T) {
	for _, tc := range []struct {
		line       string
		want       string
		compaction bool
	}{
		{typed("hello"), "hello", false},
		{part("s", "an answer"), "an answer", false},
		{call("s", "c1", "Read"), "call:c1", false},
		{result("c1", `{"output":"out","isError":true}`), kimi.ErrorStatus + "\nout", false},
		{`{"type":"context.apply_compaction","summary":"S","contextSummary":"CS","compactedCount":1}`, "CS", true},
		{`{"type":"usage.record","usage":{"inputOther":1}}`, "", false},
	} {
		rec, ok := transcript.DecodeRecordTransient(kimi.Format, []byte(tc.line), 1)
		var got string
		if ok && len(rec.Messages) > 0 {
			got = text(rec.Messages[0])
		}
		if got != tc.want || rec.Compaction != tc.compaction {
			t.Errorf("%s: %q (compaction %v), want %q (%v)", tc.line, got, rec.Compaction, tc.want, tc.compaction)
		}
	}
}

// FuzzKimiReader: any log reads without a panic, and its context materializes as its
// statistics count it.
func FuzzKimiReader(f *testing.F) {
	for _, p := range []string{"kimi-2.1-tool-resumed.jsonl", "kimi-2.1-own-compaction.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("../../../testdata/fixtures", p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(strings.Join([]string{typed("a"), typed("b"), begin("s"), call("s", "c", "Bash"), typed("c"), part("s", "x"),
		`{"type":"context.apply_compaction","summary":{"role":"user","content":[{"type":"text","text":"S"}]},"count":1}`,
		result("c", `{"output":[{"type":"image_url"},{"type":"text","text":"t"}],"durationMs":5,"note":"n"}`),
		`{"type":"context.undo","count":1}`}, "\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := transcript.Scan(bytes.NewReader(data), "fuzz", transcript.Options{Format: kimi.Format})
		if err != nil {
			return
		}
		msgs, err := res.Messages(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Messages: %v", err)
		}
		tok := 0
		for i := range msgs {
			tok += msgs[i].Tokens()
		}
		if len(msgs) != res.Stats.EffMessages || int64(tok) != res.Stats.EffTokens {
			t.Fatalf("effective %d messages %d tokens, stats %d messages %d tokens", len(msgs), tok, res.Stats.EffMessages, res.Stats.EffTokens)
		}
	})
}

package kimi_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/agent/kimi"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestKimiFixtures: logs Kimi Code CLI 2.1.0 wrote against the fake model (cmd's TestAgentKimi*,
// which compare `ctxc load` with what it sends on resume): a Read call and a resumed turn, each
// prompt followed by the reminders kimi keeps; then its own compaction, which keeps the prompts
// (sent joined), its summary and its note.
func TestKimiFixtures(t *testing.T) {
	for _, tc := range []struct {
		file        string
		history     transcript.RoleCounts
		compactions int
		responses   int
		want        []string // each message's text starts so (a call: "call:ID", a result: its text)
	}{
		{"kimi-2.1-tool-resumed.jsonl", transcript.RoleCounts{User: 5, Assistant: 3, Tool: 1}, 0, 3, []string{
			"Look at the project [use the tool]", "<system-reminder>\nToday's date", "<system-reminder>\nAuto permission mode",
			"call:call_1", "1\thello from notes\n<system>1 line read", "Done.",
			"Second question", "<system-reminder>\nAuto permission mode", "OK"}},
		{"kimi-2.1-own-compaction.jsonl", transcript.RoleCounts{User: 12, Assistant: 5, Tool: 1}, 1, 6, []string{
			"Look at the project [use the tool]\n\nSecond question\n\nThird question\n\nFourth question",
			"The conversation so far has been compacted", kimi.ContinuationNote,
			"<system-reminder>\nToday's date", "<system-reminder>\nAuto permission mode", "<state_snapshot>"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", tc.file), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != kimi.Format || st.Messages != tc.history || st.ToolCalls != 1 || st.ToolResults != 1 ||
				st.Compactions != tc.compactions || st.Usage == nil || st.Usage.Responses != tc.responses || st.EffMessages != len(tc.want) {
				t.Errorf("stats: %s %+v calls %d compactions %d effective %d usage %+v", st.Format, st.Messages, st.ToolCalls,
					st.Compactions, st.EffMessages, st.Usage)
			}
			if len(msgs) != len(tc.want) {
				t.Fatalf("%d messages, want %d: %v", len(msgs), len(tc.want), msgs)
			}
			for i, m := range msgs {
				if got := text(m); !strings.HasPrefix(got, tc.want[i]) {
					t.Errorf("message %d: %q, want it to start with %q", i, got, tc.want[i])
				}
			}
			if tc.compactions > 0 && !msgs[1].Summary {
				t.Error("the summary is not marked as one")
			}
		})
	}
}

// text is a message's text as the tests name it: a call's id, a result's text, else its text.
func text(m transcript.Message) string {
	for _, b := range m.Blocks {
		switch b.Kind {
		case transcript.BlockToolCall:
			return "call:" + b.ID
		case transcript.BlockToolResult:
			return b.Text
		}
	}
	return m.TextContent()
}

// TestKimiSessionOfPath: the session id is the folder a log's path names (its records name none),
// which `kimi -S` resumes.
func TestKimiSessionOfPath(t *testing.T) {
	a, _ := agent.Lookup(agent.KimiCode)
	for path, want := range map[string]string{
		"/h/.kimi-code/sessions/wd_p_1/session_ab-12/agents/main/wire.jsonl": "session_ab-12",
		"/h/.kimi-code/sessions/wd_p_1/session_ab-12/agents/sub1/wire.jsonl": "session_ab-12",
		"/tmp/wire.jsonl":          "",
		"/tmp/x/agents/main/other": "",
	} {
		if got := a.SessionID("", path); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	if got := a.ResumeCommand("session_ab-12", "", func(s string) string { return s }); got != "kimi -S session_ab-12" {
		t.Errorf("resume: %q", got)
	}
}

package transcript

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCopilotFixtures: the counts and the effective context of hand-checked Copilot CLI
// sessions (each line read and counted by hand): the compaction's summary starts the context in
// the agent's own wrapper, sub-agent events and messages the agent keeps from the model are left
// out of it.
func TestCopilotFixtures(t *testing.T) {
	for _, tc := range []struct {
		file                         string
		format                       Format
		user, assistant, tool, calls int
		effective                    int
		first, second                string // starts of the first two effective messages' text
	}{
		{"copilot-compacted.jsonl", FormatCopilot, 3, 4, 2, 2, 4,
			copilotSummaryHead + "<user_message>\nREAD notes.txt please\n</user_message>\n" + copilotSummaryMid + "The user asked to read notes.txt.\n</summary>\n",
			"<current_datetime>"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs, err := LoadFile("../../testdata/fixtures/"+tc.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != tc.format || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != 1 || len(msgs) != tc.effective {
				t.Fatalf("got %s %+v calls %d compactions %d effective %d", st.Format, st.Messages, st.ToolCalls, st.Compactions, len(msgs))
			}
			if !msgs[0].Summary || msgs[0].TextContent() != tc.first {
				t.Errorf("summary message:\n%q\nwant\n%q", msgs[0].TextContent(), tc.first)
			}
			if !strings.HasPrefix(msgs[1].TextContent(), tc.second) {
				t.Errorf("second message %q, want it to start with %q", msgs[1].TextContent(), tc.second)
			}
		})
	}
}

// TestCopilotDroidDetection: the agents' lines are told from Claude Code's, Codex's and pi's.
func TestCopilotDroidDetection(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format
	}{
		{`{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"t","parentId":null}`, FormatCopilot},
		{`{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"t","parentId":"e1"}`, FormatCopilot},
		{`{"type":"session_start","id":"s","version":2,"cwd":"/w"}`, FormatDroid},
		{`{"type":"compaction_state","id":"c","summaryText":"s"}`, FormatDroid},
		{`{"type":"session","id":"s","version":3}`, FormatPi},
		{`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}`, FormatClaude},
	} {
		doc := gjson.Parse(tc.line)
		got, strong, err := detectLine(doc)
		if err != nil || got != tc.want || !strong {
			t.Errorf("%s: got %s strong=%v err=%v, want %s", tc.line, got, strong, err, tc.want)
		}
	}
}

package copilot_test

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/copilot"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestCopilotFixtures: the counts and the effective context of hand-checked Copilot CLI
// sessions (each line read and counted by hand): the compaction's summary starts the context in
// the agent's own wrapper, sub-agent events and messages the agent keeps from the model are left
// out of it.
func TestCopilotFixtures(t *testing.T) {
	for _, tc := range []struct {
		file                         string
		format                       transcript.Format
		user, assistant, tool, calls int
		effective                    int
		first, second                string // starts of the first two effective messages' text
	}{
		{"copilot-compacted.jsonl", transcript.FormatCopilot, 3, 4, 2, 2, 4,
			copilot.SummaryHead + "<user_message>\nREAD notes.txt please\n</user_message>\n" + copilot.SummaryMid + "The user asked to read notes.txt.\n</summary>\n",
			"<current_datetime>"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile("../../../testdata/fixtures/"+tc.file, transcript.Options{})
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

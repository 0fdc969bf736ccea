package omp_test

import (
	"testing"

	"github.com/ctxc/ctxc/internal/agent/omp"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestOmpFixtures: sessions written by omp 18.2.3 against a fake model (cmd's judge drives it the
// same way), counted line by line: a read call and its result, a resumed turn; then omp's own
// compaction (a handoff document), whose summary starts the context in omp's handoff wrapper,
// followed by the entries from firstKeptEntryId on.
func TestOmpFixtures(t *testing.T) {
	for _, tc := range []struct {
		file                                      string
		user, assistant, tool, calls, compactions int
		effective                                 int
		first                                     string
	}{
		{"omp-18.2-tool-resumed.jsonl", 2, 3, 1, 1, 0, 6, "Look at the project [use the tool]"},
		{"omp-18.2-own-compaction.jsonl", 5, 5, 1, 1, 1, 8,
			omp.HandoffHead + "OK\n\n<files>\nnotes.txt (Read)\n</files>" + omp.HandoffTail},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile("../../../testdata/fixtures/"+tc.file, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatOmp || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != tc.compactions || len(msgs) != tc.effective {
				t.Fatalf("got %s %+v calls %d compactions %d effective %d", st.Format, st.Messages, st.ToolCalls, st.Compactions, len(msgs))
			}
			if got := msgs[0].TextContent(); got != tc.first || msgs[0].Summary != (tc.compactions > 0) {
				t.Errorf("first message (summary %v):\n%q\nwant\n%q", msgs[0].Summary, got, tc.first)
			}
		})
	}
}

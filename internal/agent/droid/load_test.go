package droid_test

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/droid"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestDroidFixtures: the counts and the effective context of a hand-checked droid session (each
// line read and counted by hand): the compaction's summary starts the context in droid's own
// wrapper, with its system info as a second block; messages droid keeps from the model are left
// out of it.
func TestDroidFixtures(t *testing.T) {
	res, msgs, err := transcript.LoadFile("../../../testdata/fixtures/droid-compacted.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != transcript.FormatDroid || st.Messages.User != 5 || st.Messages.Assistant != 3 ||
		st.Messages.Tool != 1 || st.ToolCalls != 1 || st.Compactions != 1 || len(msgs) != 3 {
		t.Fatalf("got %s %+v calls %d compactions %d effective %d", st.Format, st.Messages, st.ToolCalls, st.Compactions, len(msgs))
	}
	first := droid.SummaryHead + "The notes were read." + droid.SummaryTail + "\n<system-reminder>env</system-reminder>"
	if !msgs[0].Summary || msgs[0].TextContent() != first {
		t.Errorf("summary message:\n%q\nwant\n%q", msgs[0].TextContent(), first)
	}
	if !strings.HasPrefix(msgs[1].TextContent(), "And again?") {
		t.Errorf("second message %q, want it to start with %q", msgs[1].TextContent(), "And again?")
	}
}

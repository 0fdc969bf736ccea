package goose_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestGooseFixtures: the session Goose 1.52.0 wrote (cmd's TestAgentGoose*, which compare `ctxc
// load` with what it sends on resume), as internal/agent/goose/goosestore exports it.
func TestGooseFixtures(t *testing.T) {
	res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", "goose-1.52-tool-resumed.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != transcript.FormatGoose || st.Messages.User != 4 || st.Messages.Assistant != 3 || st.Messages.Tool != 1 ||
		st.ToolCalls != 1 || st.ToolResults != 1 || st.EffMessages != 8 || st.Usage == nil || st.Usage.Responses != 3 {
		t.Errorf("stats: %+v", st)
	}
	want := []string{"Look at the project [use the tool]", "<turn-context>", "", "hello from notes", "Done.",
		"Second question", "<turn-context>", "OK"}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for i, m := range msgs {
		text := m.TextContent()
		if m.Role == transcript.RoleTool {
			text = m.Blocks[0].Text
		}
		if !strings.HasPrefix(text, want[i]) {
			t.Errorf("message %d: %q, want it to start with %q", i, text, want[i])
		}
	}
	if c := msgs[2].Blocks[0]; c.Kind != transcript.BlockToolCall || c.Name != "shell" || c.ID != "call_2" || c.Args != `{"command":"cat notes.txt"}` {
		t.Errorf("the call: %+v", c)
	}
}

// TestGooseOwnCompaction: a session Goose 1.52.0 compacted itself (cmd's TestAgentGooseCompaction):
// its summary, its note and the turn after them.
func TestGooseOwnCompaction(t *testing.T) {
	res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", "goose-1.52-own-compaction.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != transcript.FormatGoose || st.Compactions != 1 || len(st.Records) != 1 || st.Records[0].Line != 9 ||
		st.Messages.User != 2 || st.Messages.Assistant != 2 || st.ToolCalls != 0 || st.EffMessages != 4 {
		t.Errorf("stats: %+v", st)
	}
	want := []string{"<state_snapshot>", "Your context was compacted.", "Third question", "OK"}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for i, m := range msgs {
		if !strings.HasPrefix(m.TextContent(), want[i]) {
			t.Errorf("message %d: %q, want it to start with %q", i, m.TextContent(), want[i])
		}
	}
}

package clinetask_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestClineTaskFixtures: a task the Cline CLI 2.18.0 wrote (cmd's TestAgentClineTaskResume, which
// compares `ctxc load` with what it sends on resume), as internal/agent/clinetask/clinetask exports it: its
// results are texts of the user messages, and Cline answers each call "result missing".
func TestClineTaskFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		user, assistant, tool, calls int
		texts                        []string // the context's texts (a result's text), in order
	}{
		{"cline-task-2.18-tool-resumed.jsonl", 3, 3, 2, 3, []string{
			"<task>\nLook at the project [use the tool]\n</task>", "", "result missing", "[read_file for 'notes.txt'] Result:",
			"", "result missing", "[TASK RESUMPTION]", "", "result missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", tc.name), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatClineTask || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != 0 {
				t.Errorf("stats: %+v", st)
			}
			if len(msgs) != len(tc.texts) {
				t.Fatalf("%d messages, want %d: %v", len(msgs), len(tc.texts), msgs)
			}
			for i, m := range msgs {
				text := m.TextContent()
				if m.Role == transcript.RoleTool {
					text = m.Blocks[0].Text
				}
				if !strings.HasPrefix(text, tc.texts[i]) {
					t.Errorf("message %d (%s): %q, want it to start with %q", i, m.Role, text, tc.texts[i])
				}
			}
		})
	}
}

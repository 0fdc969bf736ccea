package cline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestClineFixtures: the sessions Cline 3.0.65 wrote (cmd's TestAgentCline*, which compare `ctxc
// load` with what it sends on resume), as internal/agent/cline/clinesess exports them.
func TestClineFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		user, assistant, tool, calls int
		compactions, effective       int
		texts                        []string // the effective context's texts, in order
		cuts                         int      // results cut in their middle
	}{
		{"cline-3.0-tool-resumed.jsonl", 3, 4, 1, 1, 0, 8,
			[]string{"Look at the project [use the tool]", "", `[{"query":`, "Done.", "Reply with OK.", "OK", "Reply with OK.", "OK"}, 1},
		// Its basic compaction kept the first prompt and dropped the call and its result.
		{"cline-3.0-own-compaction.jsonl", 2, 3, 1, 1, 1, 4,
			[]string{"Look at the project [use the tool] the build", "OK", "Reply with OK.", "OK"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", tc.name), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatCline || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != tc.compactions ||
				st.EffMessages != tc.effective {
				t.Errorf("stats: %+v", st)
			}
			if len(msgs) != len(tc.texts) {
				t.Fatalf("%d messages, want %d: %v", len(msgs), len(tc.texts), msgs)
			}
			cuts := 0
			for i, m := range msgs {
				text := m.TextContent()
				if m.Role == transcript.RoleTool {
					text = m.Blocks[0].Text // (a result's text)
				}
				if !strings.HasPrefix(text, tc.texts[i]) || strings.Contains(text, "<user_input") {
					t.Errorf("message %d: %q, want it to start with %q", i, text, tc.texts[i])
				}
				if m.Role == transcript.RoleTool && strings.Contains(text, "...[truncated ") {
					cuts++
				}
			}
			if cuts != tc.cuts {
				t.Errorf("%d results cut, want %d", cuts, tc.cuts)
			}
		})
	}
}

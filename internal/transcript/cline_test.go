package transcript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestClineFixtures: the sessions Cline 3.0.65 wrote (cmd's TestAgentCline*, which compare `ctxc
// load` with what it sends on resume), as internal/clinesess exports them.
func TestClineFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		user, assistant, tool, calls int
		compactions, effective       int
		texts                        []string // the effective context's texts, in order
	}{
		{"cline-3.0-tool-resumed.jsonl", 3, 4, 1, 1, 0, 8,
			[]string{"Look at the project [use the tool]", "", `[{"query":`, "Done.", "Reply with OK.", "OK", "Reply with OK.", "OK"}},
		// Its basic compaction kept the first prompt and dropped the call and its result.
		{"cline-3.0-own-compaction.jsonl", 2, 3, 1, 1, 1, 4,
			[]string{"Look at the project [use the tool] the build", "OK", "Reply with OK.", "OK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, msgs, err := LoadFile(filepath.Join("../../testdata/fixtures", tc.name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != FormatCline || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != tc.compactions ||
				st.EffMessages != tc.effective {
				t.Errorf("stats: %+v", st)
			}
			if len(msgs) != len(tc.texts) {
				t.Fatalf("%d messages, want %d: %v", len(msgs), len(tc.texts), msgs)
			}
			for i, m := range msgs {
				text := m.TextContent()
				if m.Role == RoleTool {
					text = m.Blocks[0].Text // (a result's text)
				}
				if !strings.HasPrefix(text, tc.texts[i]) || strings.Contains(text, "<user_input") {
					t.Errorf("message %d: %q, want it to start with %q", i, text, tc.texts[i])
				}
			}
		})
	}
}

// TestClineUserText: a user's input is sent without the wrapper Cline stores it in.
func TestClineUserText(t *testing.T) {
	for in, want := range map[string]string{
		`"<user_input mode=\"act\">hi there</user_input>"`:    "hi there",
		`"<user_input mode=\"plan\">\n a \n</user_input>"`:    "a",
		`"<user_command slash=\"team\">do it</user_command>"`: "do it",
		`"plain <user_input> left as it is"`:                  "plain <user_input> left as it is",
		`"<user_input mode=\"act\">x</user_input> and more"`:  "x and more",
	} {
		b := clineText("user", jsonl.Value(in), withText)
		if b.Text != want {
			t.Errorf("%s: %q, want %q", in, b.Text, want)
		}
	}
}

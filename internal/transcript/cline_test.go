package transcript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
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
		cuts                         int      // results cut in their middle
	}{
		{"cline-3.0-tool-resumed.jsonl", 3, 4, 1, 1, 0, 8,
			[]string{"Look at the project [use the tool]", "", `[{"query":`, "Done.", "Reply with OK.", "OK", "Reply with OK.", "OK"}, 1},
		// Its basic compaction kept the first prompt and dropped the call and its result.
		{"cline-3.0-own-compaction.jsonl", 2, 3, 1, 1, 1, 4,
			[]string{"Look at the project [use the tool] the build", "OK", "Reply with OK.", "OK"}, 0},
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
			cuts := 0
			for i, m := range msgs {
				text := m.TextContent()
				if m.Role == RoleTool {
					text = m.Blocks[0].Text // (a result's text)
				}
				if !strings.HasPrefix(text, tc.texts[i]) || strings.Contains(text, "<user_input") {
					t.Errorf("message %d: %q, want it to start with %q", i, text, tc.texts[i])
				}
				if m.Role == RoleTool && strings.Contains(text, "...[truncated ") {
					cuts++
				}
			}
			if cuts != tc.cuts {
				t.Errorf("%d results cut, want %d", cuts, tc.cuts)
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
		`"plain <user_input> left unclosed"`:                  "plain  left unclosed",
		`"  \n spaced \n "`:                                   "spaced",
		`"<user_input mode=\"act\">x</user_input> and more"`:  "x and more",
	} {
		b := clineText("user", jsonl.Value(in), conv.WithText)
		if b.Text != want {
			t.Errorf("%s: %q, want %q", in, b.Text, want)
		}
	}
}

// TestClineCut: a long string of a tool result is cut as Cline's message builder cuts it (the
// figures are those of its truncateMiddle, run under Node).
func TestClineCut(t *testing.T) {
	for _, c := range []struct {
		n   int
		mid string // the cut string's code units 3990 to 4040
	}{
		{8001, "[truncated 31 chars]...\n\nmnopqrstuvwxyzabcdefghijk"},
		{10000, "truncated 2032 chars]...\n\nklmnopqrstuvwxyzabcdefgh"},
		{123456, "runcated 115490 chars]...\n\ndefghijklmnopqrstuvwxyz"},
	} {
		b := make([]byte, c.n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		got := clineCut(string(b))
		if len(got) != 8000 || got[3990:4040] != c.mid {
			t.Errorf("%d: %d chars, %q", c.n, len(got), got[3990:min(4040, len(got))])
		}
	}
	if s := strings.Repeat("x", 8000); clineCut(s) != s {
		t.Error("a string of 8,000 is cut")
	}
	got := clineCutResult(jsonl.Value(`[{"query":"q","result":"` + strings.Repeat("y", 9000) + `","success":true,"n":1.50}]`))
	if !strings.HasPrefix(got, `[{"query":"q","result":"yyy`) || !strings.Contains(got, `\n\n...[truncated 1032 chars]...\n\n`) ||
		!strings.HasSuffix(got, `yy","success":true,"n":1.50}]`) {
		t.Errorf("read_files result: %s", got[:100])
	}
}

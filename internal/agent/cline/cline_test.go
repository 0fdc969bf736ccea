package cline

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

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
		b := textBlock("user", jsonl.Value(in), conv.WithText)
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
		got := cutMiddle(string(b))
		if len(got) != 8000 || got[3990:4040] != c.mid {
			t.Errorf("%d: %d chars, %q", c.n, len(got), got[3990:min(4040, len(got))])
		}
	}
	if s := strings.Repeat("x", 8000); cutMiddle(s) != s {
		t.Error("a string of 8,000 is cut")
	}
	got := cutResult(jsonl.Value(`[{"query":"q","result":"` + strings.Repeat("y", 9000) + `","success":true,"n":1.50}]`))
	if !strings.HasPrefix(got, `[{"query":"q","result":"yyy`) || !strings.Contains(got, `\n\n...[truncated 1032 chars]...\n\n`) ||
		!strings.HasSuffix(got, `yy","success":true,"n":1.50}]`) {
		t.Errorf("read_files result: %s", got[:100])
	}
}

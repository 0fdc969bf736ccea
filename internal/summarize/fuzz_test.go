package summarize

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPreview: previews never split runes and never grow short text.
func FuzzPreview(f *testing.F) {
	f.Add("hello\nworld", 3, 2)
	f.Add(strings.Repeat("é\n", 500), 100, 50)
	f.Fuzz(func(t *testing.T, s string, head, tail int) {
		if head < 0 || tail < 0 || head > 5000 || tail > 5000 {
			return
		}
		got := preview(s, head, tail)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("preview broke UTF-8")
		}
		if utf8.RuneCountInString(s) <= head+tail+previewSlack && got != s {
			t.Fatalf("short text changed")
		}
	})
}

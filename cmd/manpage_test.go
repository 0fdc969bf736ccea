package cmd

import (
	"strings"
	"testing"
)

// TestWriteManText checks how help text becomes roff: paragraphs are filled, a paragraph with an
// indented line keeps its layout, and nothing in the text is read as a roff request or escape.
func TestWriteManText(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"paragraphs", "One line\nand its rest.\n\nSecond.", ".PP\nOne line\nand its rest.\n.PP\nSecond.\n"},
		{"indented block", "Marker:\n\n  {\"compact\":\"<summary>\"}\n  <tail>\n\nAfter.",
			".PP\nMarker:\n.PP\n.nf\n  {\"compact\":\"<summary>\"}\n  <tail>\n.fi\n.PP\nAfter.\n"},
		{"table", "a    first\n     more", ".PP\n.nf\na    first\n     more\n.fi\n"},
		{"hyphens and backslashes", `--flag a-b C:\dir`, ".PP\n\\-\\-flag a\\-b C:\\edir\n"},
		{"request-like lines", ".hidden\n'quote", ".PP\n\\&.hidden\n\\&'quote\n"},
		{"extra blank lines", "\n\nA.\n\n\n\nB.\n", ".PP\nA.\n.PP\nB.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeManText(&b, tc.text)
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}

package quote

import "testing"

// FuzzName: whatever the name, Name's answer holds no control byte, and is the name itself or a
// quoted string.
func FuzzName(f *testing.F) {
	f.Add("a\nb")
	f.Add("plain.jsonl")
	f.Fuzz(func(t *testing.T, s string) {
		got := Name(s)
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] == 0x7f {
				t.Fatalf("Name(%q) = %q holds a control byte", s, got)
			}
		}
		if got != s && (got[0] != '"' || got[len(got)-1] != '"') {
			t.Fatalf("Name(%q) = %q: changed but not quoted", s, got)
		}
	})
}

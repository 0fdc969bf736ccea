package transcript

import "testing"

// Every format the readers know is in the registry, and the registry has no other.
func TestFormatsAreTheRegistry(t *testing.T) {
	known := []Format{FormatOpenAI, FormatAnthropic, FormatCtxc, FormatClaude, FormatCodex, FormatPi,
		FormatCopilot, FormatDroid, FormatGemini, FormatQwen}
	got := Formats()
	if len(got) != len(known) {
		t.Fatalf("registry %v, readers %v", got, known)
	}
	for i := range known {
		if got[i] != known[i] {
			t.Errorf("registry[%d] = %q, want %q", i, got[i], known[i])
		}
		if f, err := ParseFormat(string(known[i])); err != nil || f != known[i] {
			t.Errorf("ParseFormat(%q) = %q, %v", known[i], f, err)
		}
	}
}

package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

func TestInstructedTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"backquoted command", "Keep the exact `make release-check` command.", []string{"make release-check"}},
		{"double quotes, straight and typographic", `Keep "blue-green rollout" and “canary gate”.`, []string{"blue-green rollout", "canary gate"}},
		{"paths and file names", "Remember docs/notes.md, main.go and https://example.com/x.", []string{"docs/notes.md", "main.go", "https://example.com/x"}},
		{"a number or a sentence end is no file", "Keep version 1.5. That is all.", nil},
		{"short terms are dropped, repeats once", "`ok` and `go vet` and `go vet`", []string{"go vet"}},
		{"a path inside backquotes is one term", "Run `go test ./internal/x` first.", []string{"go test ./internal/x"}},
		{"an unclosed quote is plain text", "Keep `this and main.go", []string{"main.go"}},
		{"no instructions", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := InstructedTerms(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("InstructedTerms(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The terms the instructions name that the middle holds become facts, spelled as the
// conversation spells them, with the line they were first seen on; the ones the middle never mentions, or the ledger holds already, do not.
func TestBuildKeepsInstructedTerms(t *testing.T) {
	items := []transcript.Item{
		{Role: "user", Kind: "text", Text: "By the way, the design notes live in docs/DESIGN-notes.md.", Line: 4},
		{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: `{"command":"make release-check"}`, Line: 5},
		{Role: "assistant", Kind: "tool_call", Name: "Edit", Text: `{"file_path":"src/app.go","old_string":"a","new_string":"b"}`, Line: 6},
	}
	instructions := "Keep docs/design-notes.md, `make release-check`, src/app.go and `make deploy`."
	l := Build(items, Options{Instructions: instructions})
	if got, want := l.ByCat[Ref], []string{"make release-check", "docs/DESIGN-notes.md"}; !slices.Equal(got, want) {
		t.Fatalf("refs = %q, want %q", got, want)
	}
	if got := l.Lines[Ref]; !slices.Equal(got, []int{5, 4}) {
		t.Errorf("lines = %v, want [5 4]", got)
	}
	if base := Build(items, Options{}); len(base.ByCat[Ref]) != 0 {
		t.Errorf("without instructions refs = %q", base.ByCat[Ref])
	}
	text, rep := Audit("## Summary\n- worked on the app\n", l, 2000)
	for _, want := range []string{"docs/DESIGN-notes.md", "make release-check"} {
		if !strings.Contains(text, want) {
			t.Errorf("audited summary lacks %q:\n%s", want, text)
		}
	}
	if rep.Carried < 2 {
		t.Errorf("carried %d facts, want the 2 instructed ones at least", rep.Carried)
	}
}

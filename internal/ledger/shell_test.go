package ledger

import (
	"slices"
	"testing"
)

// TestLexShellOperators: the operators that separate commands, redirect output to a file, or
// feed a here-string or here-document, each read as the single token scriptWrites looks for.
func TestLexShellOperators(t *testing.T) {
	w := func(s string) shTok { return shTok{word: s} }
	op := func(s string) shTok { return shTok{op: s} }
	tests := []struct {
		script string
		want   []shTok
	}{
		{"a || b", []shTok{w("a"), op(";"), w("b")}},
		{"a ;; b", []shTok{w("a"), op(";"), w("b")}},
		{"((a))", []shTok{op(";"), w("a"), op(";")}},
		{"sleep 1 & ls", []shTok{w("sleep"), w("1"), op(";"), w("ls")}},
		{"make &> build.log", []shTok{w("make"), op(">"), w("build.log")}},
		{"make &>> build.log", []shTok{w("make"), op(">"), w("build.log")}},
		{"cat <<< 'a > b'", []shTok{w("cat"), op("<"), w("a > b")}},
		{"cat <<-EOF > out.txt\n\tbody > x\n\tEOF\nls", []shTok{w("cat"), op("<<"), op(">"), w("out.txt"), op("\n"), w("ls")}},
	}
	for _, tt := range tests {
		if got := lexShell(tt.script); !slices.Equal(got, tt.want) {
			t.Errorf("lexShell(%q) = %q, want %q", tt.script, got, tt.want)
		}
	}
}

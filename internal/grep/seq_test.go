package grep

import (
	"regexp"
	"regexp/syntax"
	"testing"
)

// TestCompileSeq: which patterns seqMatch takes (a sequence of characters that starts with a
// literal), and that it finds what regexp finds in texts made to trip it.
func TestCompileSeq(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		seq     bool
	}{
		{`context.Context`, true},
		{`transcript session`, true},
		{`func \w\(`, true},
		{`id=[0-9a-f][0-9a-f]`, true},
		{`é.[^x]\d`, true},
		{`(ab)c`, true},
		{`a.{3}b`, true},
		{`x(?s:.)y`, true},
		{`.Context`, false},    // no literal first: regexp steps through every character
		{`(?i)context`, false}, // a folded literal
		{`a(?i)b`, false},
		{`a|b`, false},
		{`ab+`, false},
		{`ab?`, false},
		{`^ab`, false},
		{`ab\b`, false},
		{`a.{2,3}`, false},
		{`[a]b`, true}, // the parser makes it a literal
	} {
		re, err := syntax.Parse(tc.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := compileSeq(re) != nil; got != tc.seq {
			t.Errorf("%q: sequence %v, want %v", tc.pattern, got, tc.seq)
		}
	}
	texts := []string{"", "context", "contextXContext", "a context\nContext and context.Context",
		"contextéContext", "context\xffContext", "context\xe2\x82Context", "cocontext-Context",
		"func a(", "func é(", "id=0f", "id=0g id=af", "é\n]7 éx]7 éa]7", "abc", "ab\xf0\x9f\x98\x80b", "aé\x80\x80xb",
		"x\ny", "xzy", "éé\xc3"}
	for _, pattern := range []string{`context.Context`, `func \w\(`, `id=[0-9a-f][0-9a-f]`, `é.[^x]\d`, `(ab)c`,
		`a.{3}b`, `x(?s:.)y`, `é`, `\x{FFFD}`, `a\x{FFFD}`, `a\x{D800}`} {
		for _, text := range texts {
			checkSeq(t, pattern, text)
		}
	}
}

// checkSeq compares seqMatch with regexp on one pattern and text (when seqMatch takes the
// pattern).
func checkSeq(t *testing.T, pattern, text string) {
	t.Helper()
	want, err := regexp.Compile(pattern)
	if err != nil {
		return
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return
	}
	m := compileSeq(re)
	if m == nil {
		return
	}
	start, end, ok := m.find(text)
	loc := want.FindStringIndex(text)
	if ok != (loc != nil) || ok && (start != loc[0] || end != loc[1]) {
		t.Fatalf("%q in %q: seqMatch %d, %d, %v; regexp %v", pattern, text, start, end, ok, loc)
	}
}

func FuzzSeqMatch(f *testing.F) {
	f.Add(`context.Context`, "a context\nContext and context.Context")
	f.Add(`é.[^x]\d`, "é\n]7 éx]7 éa]7")
	f.Add(`a\x{FFFD}.`, "a\xff\xffa\xef\xbf\xbdb")
	f.Add(`ab[\x{100}-\x{200}\pL]`, "abc abĀ ab\xc4")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		checkSeq(t, pattern, text)
	})
}

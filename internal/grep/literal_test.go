package grep

import "testing"

// TestPrefilterLiteral: the literal the prefilter looks for is a pattern's longest, and of
// two as long the one of rarer bytes.
func TestPrefilterLiteral(t *testing.T) {
	for _, tc := range []struct{ pattern, lit string }{
		{`context.Context`, "Context"},
		{`Context.context`, "Context"},
		{`transcript session`, "transcript session"},
		{`abc.defgh`, "defgh"},
		{`zzz.eee`, "zzz"},
		{`eee.zzz`, "zzz"},
	} {
		p, err := Compile(tc.pattern, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(p.lit) != tc.lit {
			t.Errorf("%q: literal %q, want %q", tc.pattern, p.lit, tc.lit)
		}
	}
}

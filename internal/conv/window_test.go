package conv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// checkWindows: cutting the escaped form of s anywhere (moved to escapeBoundary) decodes to two
// parts that make s, and windowEnds gives a prefix and a suffix of s of at least w bytes.
func checkWindows(t *testing.T, s string, p, w int) {
	t.Helper()
	lit, _ := json.Marshal(s)
	checkLiteral(t, lit, p, w)
}

func checkLiteral(t *testing.T, lit []byte, p, w int) {
	t.Helper()
	inner := string(lit[1 : len(lit)-1])
	whole := jsonl.Unescape(inner)
	if p < 0 {
		p = -p
	}
	p %= len(inner) + 1
	q := escapeBoundary(inner, p)
	if q > p || q < 0 {
		t.Fatalf("escapeBoundary(%q, %d) = %d", inner, p, q)
	}
	if got := jsonl.Unescape(inner[:q]) + jsonl.Unescape(inner[q:]); got != whole {
		t.Fatalf("cut %q at %d (asked %d): %q + %q != %q", inner, q, p, jsonl.Unescape(inner[:q]), jsonl.Unescape(inner[q:]), whole)
	}
	if w <= 0 {
		return
	}
	if pre, k := unescapePrefix(inner, w); jsonl.Unescape(inner[:k]) != pre || !strings.HasPrefix(whole, pre) || (len(pre) < w && k < len(inner)) {
		t.Fatalf("unescapePrefix(%q, %d) = %q, %d", inner, w, pre, k)
	}
	head, tail, cut := windowEnds(jsonl.Value(lit), w)
	if !cut {
		return
	}
	if len(head) < w || len(tail) < w || !strings.HasPrefix(whole, head) || !strings.HasSuffix(whole, tail) || len(head)+len(tail) > len(whole) {
		t.Fatalf("windowEnds(%q, %d) = %q, %q", lit, w, head, tail)
	}
}

func TestEscapeBoundary(t *testing.T) {
	for _, s := range []string{
		"", "abc", "a\nb\tc\\d\"e", "\u0001\u001f", "😀😀😀", "a😀\n", "日本語\n日本語",
		"\\\\\\n", strings.Repeat("\\u0041", 5), string([]byte{0xff, 'a', 0xfe}),
	} {
		lit, _ := json.Marshal(s)
		for p := 0; p <= len(lit); p++ {
			for _, w := range []int{0, 1, 2, 3, 5} {
				checkWindows(t, s, p, w)
			}
		}
	}
	// Surrogate pairs as JSON writes them for non-BMP characters when escaped (\ud83d\ude00).
	inner := `ab\ud83d\ude00cd\ud83d\ude00`
	for p := 0; p <= len(inner); p++ {
		q := escapeBoundary(inner, p)
		if jsonl.Unescape(inner[:q])+jsonl.Unescape(inner[q:]) != jsonl.Unescape(inner) {
			t.Fatalf("pair cut at %d", q)
		}
	}
}

func FuzzWindows(f *testing.F) {
	for _, s := range []string{"a\nb", "😀\\\"x", "\u2028\u0000"} {
		f.Add(s, 3, 2)
	}
	f.Add(`\ud83d\ude00x\ud83d`, 7, 1)
	f.Fuzz(func(t *testing.T, s string, p, w int) {
		checkWindows(t, s, p, w%64)
		// s as the inside of a literal, when that is valid JSON: escapes written by other
		// encoders (\uXXXX surrogate pairs, \/).
		if lit := []byte(`"` + s + `"`); jsonl.Valid(lit) {
			checkLiteral(t, lit, p, w%64)
		}
	})
}

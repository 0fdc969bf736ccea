package estimate

import (
	"encoding/json"
	"testing"
)

func TestFromChars(t *testing.T) {
	for _, tc := range []struct{ chars, want int }{{0, 0}, {-3, 0}, {1, 1}, {4, 1}, {5, 2}, {8, 2}, {9, 3}} {
		if got := FromChars(tc.chars); got != tc.want {
			t.Errorf("FromChars(%d) = %d, want %d", tc.chars, got, tc.want)
		}
	}
}

func TestTokensCountsCodePoints(t *testing.T) {
	if got := Tokens("日本語のテ"); got != 2 { // 5 code points, 15 bytes
		t.Fatalf("Tokens = %d, want 2", got)
	}
}

func TestJSONStringChars(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\there", "quote\"back\\slash", "naïve café", "日本語", "🙂🚀", "<tag>&amp;", "\u0001ctl", "line\nbreak\r\n"} {
		raw, _ := json.Marshal(s)
		if got, want := JSONStringChars(string(raw)), Chars(s); got != want {
			t.Errorf("JSONStringChars(%s) = %d, want %d", raw, got, want)
		}
	}
	// Escaped surrogate pair and escaped BMP char.
	if got := JSONStringChars(`"\ud83d\ude00 \u00e9"`); got != 3 {
		t.Errorf("surrogate pair: got %d, want 3", got)
	}
}

func FuzzJSONStringChars(f *testing.F) {
	f.Add("hello")
	f.Add("日本\n\"x\"")
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			return
		}
		var back string
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if got, want := JSONStringChars(string(raw)), Chars(back); got != want {
			t.Fatalf("JSONStringChars(%q) = %d, want %d", raw, got, want)
		}
	})
}

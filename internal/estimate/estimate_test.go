package estimate

import "testing"

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

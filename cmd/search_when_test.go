package cmd

import (
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"", time.Time{}, false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"12h", now.Add(-12 * time.Hour), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"30s", now.Add(-30 * time.Second), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"2026-11-20T10:00:00Z", time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), false},
		{"d", time.Time{}, true},
		{"-3d", time.Time{}, true},
		{"+3d", time.Time{}, true},
		{"3y", time.Time{}, true},
		{"3 d", time.Time{}, true},
		{"yesterday", time.Time{}, true},
	}
	for _, c := range cases {
		got, err := parseWhen(c.in, now)
		if (err != nil) != c.bad || !c.bad && !got.Equal(c.want) {
			t.Errorf("%q: %v, %v; want %v (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
	if got, err := parseWhen("2026-11-20", now); err != nil || got.Year() != 2026 || got.Day() != 20 {
		t.Errorf("a date: %v, %v", got, err)
	}
}

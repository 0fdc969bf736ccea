package quote

import "testing"

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sessions/a.jsonl", "sessions/a.jsonl"},
		{"my session (copy).jsonl", "my session (copy).jsonl"},
		{"café/ünïcode-日本.jsonl", "café/ünïcode-日本.jsonl"},
		{"", ""},
		{"a\nb.jsonl", `"a\nb.jsonl"`},
		{"a.jsonl\nb.jsonl:1: faked", `"a.jsonl\nb.jsonl:1: faked"`},
		{"tab\there", `"tab\there"`},
		{"cr\r.jsonl", `"cr\r.jsonl"`},
		{"esc\x1b[31mred", `"esc\x1b[31mred"`},
		{"del\x7f", `"del\x7f"`},
		{"bidi\u202egnp.jsonl", `"bidi\u202egnp.jsonl"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{`"quoted".jsonl`, `"\"quoted\".jsonl"`},
		{`in"side.jsonl`, `in"side.jsonl`},
		{`back\slash.jsonl`, `back\slash.jsonl`},
	} {
		if got := Name(tc.in); got != tc.want {
			t.Errorf("Name(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

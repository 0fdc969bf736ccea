package jsonl

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestAppendValidUTF8: bytes of a JSON text that are not UTF-8 come out as \ufffd, one per
// byte as AppendQuote and encoding/json count them; valid text is copied as it is.
func TestAppendValidUTF8(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
	}{
		{`{"a":"plain"}`, `{"a":"plain"}`, 0},
		{`{"a":"café 日本 🙂"}`, `{"a":"café 日本 🙂"}`, 0},
		{"{\"a\":\"caf\xe9\"}", `{"a":"caf\ufffd"}`, 1},
		{"[\"\xff\xfe\",\"x\xc3\"]", `["\ufffd\ufffd","x\ufffd"]`, 3},
		{"{\"k\xed\xa0\x80\":1}", `{"k\ufffd\ufffd\ufffd":1}`, 3}, // a surrogate encoded in UTF-8
		{"\"\xf0\x9f\x99\"", `"\ufffd\ufffd\ufffd"`, 3},           // a 4-byte sequence cut short
	} {
		got, n := AppendValidUTF8(nil, []byte(tc.in))
		if string(got) != tc.want || n != tc.n {
			t.Errorf("AppendValidUTF8(%q) = %s, %d; want %s, %d", tc.in, got, n, tc.want, tc.n)
		}
		if k := InvalidUTF8(tc.in); k != tc.n {
			t.Errorf("InvalidUTF8(%q) = %d, want %d", tc.in, k, tc.n)
		}
		if q := Quote(tc.in); !utf8.Valid(q) || !json.Valid(q) {
			t.Errorf("Quote(%q) = %s: not valid UTF-8 JSON", tc.in, q)
		}
	}
}

// FuzzValidUTF8Output: whatever bytes come in, a JSON text ctxc writes is valid JSON and valid
// UTF-8 (AppendQuote for strings it quotes, AppendValidUTF8 for JSON it copies), and says what
// encoding/json reads in the input, invalid bytes as U+FFFD.
func FuzzValidUTF8Output(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, "{\"a\":\"\xff\"}", "[\"\xc3\",\"\xe2\x82\"]", "\"\xed\xa0\x80\"", `"\ud800"`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if q := AppendQuote(nil, string(b)); !utf8.Valid(q) || !json.Valid(q) {
			t.Fatalf("AppendQuote(%q) = %q: not valid UTF-8 JSON", b, q)
		}
		if !Valid(b) {
			return
		}
		out, n := AppendValidUTF8(nil, b)
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("AppendValidUTF8(%q) = %q: not valid UTF-8 JSON", b, out)
		}
		if k := InvalidUTF8(string(b)); n != k {
			t.Fatalf("AppendValidUTF8(%q) replaced %d bytes, InvalidUTF8 counts %d", b, n, k)
		}
		var in, got any
		if json.Unmarshal(b, &in) != nil || json.Unmarshal(out, &got) != nil {
			t.Fatalf("encoding/json rejects %q or %q", b, out)
		}
		if !reflect.DeepEqual(in, got) {
			t.Fatalf("AppendValidUTF8(%q) reads as %#v, the input as %#v", b, got, in)
		}
	})
}

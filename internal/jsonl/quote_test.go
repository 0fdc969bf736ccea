package jsonl

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
	for _, s := range []string{`{"a":"b"}`, "{\"a\":\"\xff\"}", "[\"\xc3\",\"\xe2\x82\"]", "\"\xed\xa0\x80\"", `"\ud800"`, "\xff", "1E700", `[-1e-999,{"n":2E+400}]`} {
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
		// Numbers are read as the text they are: 1E700 is valid JSON that a float64 cannot hold.
		in, errIn := decodeNumbers(b)
		got, errOut := decodeNumbers(out)
		if errIn != nil || errOut != nil {
			t.Fatalf("encoding/json rejects %q (%v) or %q (%v)", b, errIn, out, errOut)
		}
		if !reflect.DeepEqual(in, got) {
			t.Fatalf("AppendValidUTF8(%q) reads as %#v, the input as %#v", b, got, in)
		}
	})
}

// decodeNumbers reads one JSON text as encoding/json does, numbers kept as their text.
func decodeNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// TestWriteQuoteInPieces: quoting a text piece by piece writes the bytes AppendQuote writes
// for it whole, whatever the piece size: a piece never ends inside a UTF-8 sequence (which
// would turn a valid character into \ufffd) nor changes how invalid bytes and U+2028 come out.
func TestWriteQuoteInPieces(t *testing.T) {
	texts := []string{
		"",
		"plain ascii text",
		"café 日本 🙂 \u2028 \u2029 end",
		"\"quoted\" \\ back\nslash\ttab\x01\x1f",
		"caf\xe9 \xff\xfe \xf0\x9f\x99 cut \xed\xa0\x80 surrogate",
		"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80 a run of continuation bytes",
		"\xf0\x90\x80\x80\x80\x80 a 4-byte character, then continuation bytes",
		strings.Repeat("é🙂\u2028x\"", 50),
	}
	for _, s := range texts {
		want := string(AppendQuote(nil, s))
		for piece := 1; piece <= 9; piece++ {
			var b strings.Builder
			if err := writeQuote(&b, s, piece); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Errorf("writeQuote(%q, piece %d) = %s, want %s", s, piece, b.String(), want)
			}
		}
	}
}

// FuzzWriteQuote: WriteQuote in pieces matches AppendQuote on any bytes.
func FuzzWriteQuote(f *testing.F) {
	for _, s := range []string{"a", "é🙂", "\xf0\x9f\x99\x80\x80", "\u2028\"\\"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, piece uint8) {
		var out strings.Builder
		if err := writeQuote(&out, string(b), int(piece)%16+1); err != nil {
			t.Fatal(err)
		}
		if want := string(AppendQuote(nil, string(b))); out.String() != want {
			t.Fatalf("writeQuote(%q, %d) = %s, want %s", b, int(piece)%16+1, out.String(), want)
		}
	})
}

package jsonl

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/internal/strscan"
)

// Value is the raw text of one JSON value from a line that Valid already accepted. It
// is the hot path of `ctxc stats`: walking an object's keys skips string values with memchr
// (strings.IndexByte) and never unescapes them, where gjson's Get decodes every string value it
// passes through. Values are substrings of the line: nothing is copied.
type Value string

func (v Value) IsObject() bool { return len(v) > 0 && v[0] == '{' }
func (v Value) IsArray() bool  { return len(v) > 0 && v[0] == '[' }
func (v Value) IsString() bool { return len(v) > 0 && v[0] == '"' }
func (v Value) Exists() bool   { return len(v) > 0 }
func (v Value) IsNull() bool   { return v == "null" }

// Str decodes a string value (copying only when it has escapes); other values give "".
func (v Value) Str() string {
	if !v.IsString() || len(v) < 2 {
		return ""
	}
	inner := string(v[1 : len(v)-1])
	if strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return Unescape(inner)
}

// Unescape decodes the text between a JSON string's quotes: runs without escapes are copied
// whole. Invalid escapes (which validation would have refused) are kept as they are.
func Unescape(s string) string {
	b := AppendUnescape(make([]byte, 0, len(s)), s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendUnescape appends the decoded text of s (Unescape) to b.
func AppendUnescape(b []byte, s string) []byte {
	for {
		i := strscan.Backslash(s)
		if i < 0 || i+1 >= len(s) {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		var n int
		b, n = AppendEscape(b, s[i:])
		s = s[i+n:]
	}
}

// WriteEscape is AppendEscape onto a strings.Builder.
func WriteEscape(b *strings.Builder, s string) int {
	var buf [8]byte
	out, n := AppendEscape(buf[:0], s)
	b.Write(out)
	return n
}

// AppendEscape decodes the escape at the start of s (s[0] is a backslash, s[1] exists) onto
// b and returns its length. An invalid escape is written as it is.
func AppendEscape(b []byte, s string) ([]byte, int) {
	switch c := s[1]; c {
	case 'n':
		b = append(b, '\n')
	case 't':
		b = append(b, '\t')
	case 'r':
		b = append(b, '\r')
	case '"', '\\', '/':
		b = append(b, c)
	case 'b':
		b = append(b, '\b')
	case 'f':
		b = append(b, '\f')
	case 'u':
		if r, n := decodeU(s); n > 0 {
			return utf8.AppendRune(b, r), n
		}
		b = append(b, s[:2]...)
	default:
		b = append(b, s[:2]...)
	}
	return b, 2
}

// decodeU decodes \uXXXX (or an escaped surrogate pair) at the start of s; n is 0 when s does
// not start with a well-formed escape. A lone surrogate becomes U+FFFD, as in encoding/json.
func decodeU(s string) (rune, int) {
	r1, ok := Hex4(s, 2)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r1) {
		if r2, ok := Hex4(s, 8); ok && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r1, 6
}

// Hex4 reads the four hex digits of a \u escape at s[at:].
func Hex4(s string, at int) (rune, bool) {
	if len(s) < at+4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[at : at+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Text is a string's decoded content, or any other value's raw JSON (null and absent give "").
func (v Value) Text() string {
	switch {
	case v.IsString():
		return v.Str()
	case !v.Exists() || v.IsNull():
		return ""
	}
	return string(v)
}

// Chars counts code points as the estimate sees them: a string's decoded content, another
// value's raw JSON.
func (v Value) Chars() int {
	switch {
	case v.IsString() && len(v) >= 2:
		return StringChars(string(v[1 : len(v)-1]))
	case !v.Exists() || v.IsNull():
		return 0
	}
	return utf8.RuneCountInString(string(v))
}

func (v Value) Bool() bool { return v == "true" }

func (v Value) Int() int64 {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(v), 64)
		if ferr != nil {
			return 0
		}
		return int64(f)
	}
	return n
}

// Get returns the value of key in an object ("" when absent or not an object). Keys are matched
// on their raw text, which is what they are in every transcript format (no escapes).
func (v Value) Get(key string) Value {
	var out Value
	v.Each(func(k string, val Value) bool {
		if k == key {
			out = val
			return false
		}
		return true
	})
	return out
}

// Each calls fn for every key/value of an object, or every element of an array (with key "").
func (v Value) Each(fn func(key string, val Value) bool) {
	if len(v) < 2 || (v[0] != '{' && v[0] != '[') {
		return
	}
	obj := v[0] == '{'
	s := string(v)
	i := 1
	for {
		i = SkipSpace(s, i)
		if i >= len(s) || s[i] == '}' || s[i] == ']' {
			return
		}
		key := ""
		if obj {
			end := SkipString(s, i)
			key = s[i+1 : end-1]
			i = SkipSpace(s, end)
			i++ // ':'
			i = SkipSpace(s, i)
		}
		end := SkipValue(s, i)
		if !fn(key, Value(s[i:end])) {
			return
		}
		i = SkipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

// Walk is Each for hot paths: fn is given the rest of the text from the value's first byte and
// returns the value's length if it read the value, or -1 to have walk skip it. A value read by
// fn is therefore scanned once, where each would scan it to measure it and fn again to read it.
// v may extend past the container; walk returns the length of the container.
func (v Value) Walk(fn func(key string, rest Value) int) int {
	if len(v) < 2 || (v[0] != '{' && v[0] != '[') {
		return SkipValue(string(v), 0)
	}
	obj := v[0] == '{'
	s := string(v)
	i := 1
	for {
		i = SkipSpace(s, i)
		if i >= len(s) {
			return len(s)
		}
		if s[i] == '}' || s[i] == ']' {
			return i + 1
		}
		key := ""
		if obj {
			end := SkipString(s, i)
			key = s[i+1 : end-1]
			i = SkipSpace(s, end)
			i++ // ':'
			i = SkipSpace(s, i)
		}
		if n := fn(key, Value(s[i:])); n >= 0 {
			i += n
		} else {
			i = SkipValue(s, i)
		}
		i = SkipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

// Prefix returns the first value of rest, bounded, and its length.
func (rest Value) Prefix() (Value, int) {
	n := SkipValue(string(rest), 0)
	return rest[:n], n
}

func SkipSpace(s string, i int) int { return strscan.SkipSpace(s, i) }

// SkipString returns the index just past the string that starts at s[i] ('"'). Quotes are
// far rarer than backslashes in transcript text, so jumping from quote to quote with memchr
// beats looking at every escape.
func SkipString(s string, i int) int {
	i++
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return len(s)
		}
		i += j
		// Count the backslashes before the quote: an odd number escapes it.
		k := i - 1
		for k >= 0 && s[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1
		}
		// An escaped quote: the string holds code or logs, where they come every few dozen
		// bytes; the kernel goes on without stopping at each.
		i = strscan.QuoteEnd(s, i+1)
	}
}

// SkipValue returns the index just past the value that starts at s[i].
func SkipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return SkipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = SkipString(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(s) {
		switch s[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// StringChars counts the code points of a JSON string's decoded value, given the text
// between its quotes, without decoding (strscan.Chars).
func StringChars(s string) int { return strscan.Chars(s) }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// load64 reads 8 bytes little-endian.
func load64(s string, i int) uint64 { return strscan.Load64(s, i) }

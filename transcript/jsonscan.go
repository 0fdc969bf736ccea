package transcript

import (
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// jv is the raw text of one JSON value from a line that gjson.ValidBytes already accepted. It
// is the hot path of `ctxc stats`: walking an object's keys skips string values with memchr
// (strings.IndexByte) and never unescapes them, where gjson's Get decodes every string value it
// passes through. Values are substrings of the line: nothing is copied.
type jv string

func (v jv) isObject() bool { return len(v) > 0 && v[0] == '{' }
func (v jv) isArray() bool  { return len(v) > 0 && v[0] == '[' }
func (v jv) isString() bool { return len(v) > 0 && v[0] == '"' }
func (v jv) exists() bool   { return len(v) > 0 }
func (v jv) isNull() bool   { return v == "null" }

// str decodes a string value (copying only when it has escapes); other values give "".
func (v jv) str() string {
	if !v.isString() {
		return ""
	}
	inner := string(v[1 : len(v)-1])
	if strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return gjson.Parse(string(v)).String()
}

// text is a string's decoded content, or any other value's raw JSON (null and absent give "").
func (v jv) text() string {
	switch {
	case v.isString():
		return v.str()
	case !v.exists() || v.isNull():
		return ""
	}
	return string(v)
}

// chars counts code points as the estimate sees them: a string's decoded content, another
// value's raw JSON.
func (v jv) chars() int {
	switch {
	case v.isString():
		return jsonStringChars(string(v[1 : len(v)-1]))
	case !v.exists() || v.isNull():
		return 0
	}
	return utf8.RuneCountInString(string(v))
}

func (v jv) boolean() bool { return v == "true" }

func (v jv) int() int64 {
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

// get returns the value of key in an object ("" when absent or not an object). Keys are matched
// on their raw text, which is what they are in every transcript format (no escapes).
func (v jv) get(key string) jv {
	var out jv
	v.each(func(k string, val jv) bool {
		if k == key {
			out = val
			return false
		}
		return true
	})
	return out
}

// each calls fn for every key/value of an object, or every element of an array (with key "").
func (v jv) each(fn func(key string, val jv) bool) {
	if len(v) < 2 || (v[0] != '{' && v[0] != '[') {
		return
	}
	obj := v[0] == '{'
	s := string(v)
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == '}' || s[i] == ']' {
			return
		}
		key := ""
		if obj {
			end := skipString(s, i)
			key = s[i+1 : end-1]
			i = skipSpace(s, end)
			i++ // ':'
			i = skipSpace(s, i)
		}
		end := skipValue(s, i)
		if !fn(key, jv(s[i:end])) {
			return
		}
		i = skipSpace(s, end)
		if i < len(s) && s[i] == ',' {
			i++
		}
	}
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that starts at s[i] ('"').
func skipString(s string, i int) int {
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
		i++
	}
}

// skipValue returns the index just past the value that starts at s[i].
func skipValue(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = skipString(s, i)
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

// jsonStringChars counts the code points of a JSON string's decoded value, given the text
// between its quotes, without decoding: code points are the bytes that are not UTF-8
// continuation bytes (counted eight at a time), less what escapes add (\n is two bytes for one
// character, \u00e9 six for one, an escaped surrogate pair twelve for one).
func jsonStringChars(s string) int {
	n := len(s) - continuationBytes(s)
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 || i+j+1 >= len(s) {
			return n
		}
		i += j
		if s[i+1] != 'u' {
			n--
			i += 2
			continue
		}
		if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' && isHighSurrogateHex(s[i+2:i+6]) {
			n -= 11
			i += 12
			continue
		}
		n -= 5
		i += 6
	}
}

func isHighSurrogateHex(h string) bool {
	return (h[0] == 'd' || h[0] == 'D') && strings.IndexByte("89abAB", h[1]) >= 0
}

// continuationBytes counts bytes of the form 10xxxxxx.
func continuationBytes(s string) int {
	const hi = 0x8080808080808080
	n := 0
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&hi == 0 {
			continue // all ASCII
		}
		// bit 7 set and bit 6 clear.
		n += bits.OnesCount64(w & hi &^ (w << 1))
	}
	for ; i < len(s); i++ {
		if s[i]&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

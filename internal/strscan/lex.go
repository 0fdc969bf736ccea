package strscan

import (
	"math/bits"
	"strings"
)

// The pieces of JSON validation that transcript's validator and recall's line-shape walk
// share, besides the kernels: a string's plain runs, numbers, white space, literals.

// PlainRun returns the index of the first byte at or after i that ends a plain run of a JSON
// string's text (a quote, a control character, or a backslash that does not start a two-byte
// escape), or len(s): PlainEnd's rule, carried to the end. Most strings (keys, ids, short
// values) end within two words, read eight bytes at a time; longer runs go to the kernel. A
// two-byte escape (\n, \", \t...: every few dozen bytes of code and logs) is stepped over
// without leaving the loop.
func PlainRun(s string, i int) int {
	for words := 0; i+8 <= len(s); words++ {
		if words == 2 {
			if i = PlainEnd(s, i); i+8 > len(s) {
				break
			}
		}
		// A byte below 0x20, a quote or a backslash ends the word: jump straight to it.
		if m := stops(Load64(s, i)); m != 0 {
			i += bits.TrailingZeros64(m) / 8
			if s[i] == '\\' && i+1 < len(s) && SimpleEscape[s[i+1]] {
				i += 2
				continue
			}
			return i
		}
		i += 8
	}
	for i < len(s) {
		switch c := s[i]; {
		case c == '"' || c < 0x20:
			return i
		case c == '\\':
			if i+1 >= len(s) || !SimpleEscape[s[i+1]] {
				return i
			}
			i += 2
			continue
		}
		i++
	}
	return len(s)
}

// Backslash returns the index of the first backslash of s, or -1. Text with escapes has one
// every few dozen bytes, where IndexByte's set-up costs more than its search: the first 64
// bytes are read a word at a time, and IndexByte takes a longer run.
func Backslash(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if i == 64 {
			if j := strings.IndexByte(s[i:], '\\'); j >= 0 {
				return i + j
			}
			return -1
		}
		x := Load64(s, i) ^ (lsb * '\\')
		if m := (x - lsb) &^ x & msb; m != 0 { // its lowest set bit is exact
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if s[i] == '\\' {
			return i
		}
	}
	return -1
}

// stops marks the bytes of w (eight bytes of a string's text) that end a plain run: a quote, a
// backslash, a byte below 0x20. Only its lowest set bit is exact (borrows run upwards, so a
// byte after a marked one may be marked too): it is the first such byte, at bit 8k+7.
func stops(w uint64) uint64 {
	q, bs := w^(lsb*'"'), w^(lsb*'\\')
	return ((w-lsb*0x20)&^w | (q-lsb)&^q | (bs-lsb)&^bs) & msb
}

// ShortStringEnd returns the index past the JSON string that starts at s[i] ('"') when it
// is short and plain: its closing quote within its first 48 bytes, and no backslash or
// control character before it. Else it returns -1, and the caller checks the string in full
// (StringEnd). Keys, ids and timestamps (most of a record's strings) end here, eight bytes
// a step, without StringEnd's calls and the kernel's set-up.
func ShortStringEnd(s string, i int) int {
	end := min(len(s)-8, i+41)
	for k := i + 1; k <= end; k += 8 {
		if m := stops(Load64(s, k)); m != 0 {
			if j := k + bits.TrailingZeros64(m)/8; s[j] == '"' {
				return j + 1
			}
			return -1
		}
	}
	return -1
}

// StringEnd checks the JSON string that starts at s[i] ('"') and returns the index past it,
// or -1: no control character, only the escapes JSON allows. onU, when not nil, is given the
// index of each \uXXXX escape's backslash.
func StringEnd(s string, i int, onU func(at int)) int {
	i++
	for {
		if i = PlainRun(s, i); i >= len(s) {
			return -1
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < ' ':
			return -1
		case c == '\\':
			// Not a two-byte escape (PlainRun steps over those): \uXXXX or invalid.
			if i+5 >= len(s) || s[i+1] != 'u' || !IsHex(s[i+2]) || !IsHex(s[i+3]) || !IsHex(s[i+4]) || !IsHex(s[i+5]) {
				return -1
			}
			if onU != nil {
				onU(i)
			}
			i += 6
		}
	}
}

// NumberEnd checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at i and returns the index
// past it, or -1.
func NumberEnd(s string, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return -1
	}
	if s[i] == '0' {
		i++
	} else {
		i = digitsEnd(s, i)
	}
	if i < len(s) && s[i] == '.' {
		if i++; i >= len(s) || !isDigit(s[i]) {
			return -1
		}
		i = digitsEnd(s, i)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return -1
		}
		i = digitsEnd(s, i)
	}
	return i
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(s string, i int) int {
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

// HasPrefixAt reports whether s holds p at i.
func HasPrefixAt(s string, i int, p string) bool {
	return len(s)-i >= len(p) && s[i:i+len(p)] == p
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// Load64 reads 8 bytes little-endian (the compiler turns this into one load).
func Load64(s string, i int) uint64 {
	// One bounds check, on the slice: indexing s at i..i+7 checked each index.
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Chars counts the code points of a JSON string's decoded value, given the text
// between its quotes, without decoding: escapes count as the one character they stand for (an
// escaped surrogate pair as one), other bytes count unless they are UTF-8 continuation bytes.
// It reads eight bytes at a time; where a word holds a backslash, the bytes before it are
// counted at once and the escape is stepped over.
func Chars(s string) int {
	n, i := 0, 0
	// The vector kernel first: it stops at a \u escape (stepped over here), or near the end.
	for len(s)-i >= MinLen {
		c, k := CountChars(s[i:])
		n, i = n+c, i+k
		if i >= len(s) || s[i] != '\\' {
			break
		}
		i += escapeLen(s, i)
		n++
	}
	for i+8 <= len(s) {
		w := Load64(s, i)
		x := w ^ (lsb * '\\')
		bs := (x - lsb) &^ x & msb // lowest set bit marks the first backslash exactly
		if bs == 0 {
			n += 8 - bits.OnesCount64(w&msb&^(w<<1))
			i += 8
			continue
		}
		k := bits.TrailingZeros64(bs) / 8
		if k > 0 {
			pre := w & (1<<(8*k) - 1)
			n += k - bits.OnesCount64(pre&msb&^(pre<<1))
		}
		i += k
		i += escapeLen(s, i)
		n++
	}
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += escapeLen(s, i)
			n++
			continue
		}
		if c&0xC0 != 0x80 {
			n++
		}
		i++
	}
	return n
}

// escapeLen is the length of the escape at s[i] ('\\'): 2, 6 for \uXXXX, 12 for an escaped
// surrogate pair.
func escapeLen(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != 'u' {
		return 2
	}
	if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' && isHighSurrogateHex(s[i+2:i+6]) && isLowSurrogateHex(s[i+8:i+12]) {
		return 12
	}
	return 6
}

func isLowSurrogateHex(h string) bool {
	return (h[0] == 'd' || h[0] == 'D') && strings.IndexByte("cdefCDEF", h[1]) >= 0
}

func isHighSurrogateHex(h string) bool {
	return (h[0] == 'd' || h[0] == 'D') && strings.IndexByte("89abAB", h[1]) >= 0
}

// SkipLineSpace is SkipSpace within a line: it stops at a '\n', which ends the line.
func SkipLineSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

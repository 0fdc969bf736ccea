package strscan

import "math/bits"

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
		w := load64(s, i)
		q, bs := w^(lsb*'"'), w^(lsb*'\\')
		// A byte below 0x20, a quote or a backslash ends the word. The lowest set bit of the
		// mask is exact (borrows only run upwards), so jump straight to that byte.
		if m := ((w-lsb*0x20)&^w | (q-lsb)&^q | (bs-lsb)&^bs) & msb; m != 0 {
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

// load64 reads 8 bytes little-endian (the compiler turns this into one load).
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

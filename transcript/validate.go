package transcript

import (
	"math/bits"

	"github.com/ctxc/ctxc/internal/strscan"
)

// validJSON reports whether b is one valid JSON value (surrounded by optional white space): the
// same answer as gjson.ValidBytes, which FuzzValidJSON checks on every input it tries. Two
// reasons to have it: validation is the largest part of `ctxc stats`, and this one skips the
// plain runs of strings eight bytes at a time where gjson looks at every byte; and it keeps its
// own stack of open containers instead of recursing, so a line of a hundred million '[' is an
// invalid line, not a stack overflow that kills the process.
func validJSON(b []byte) bool {
	s := unsafeString(b)
	var stack []byte // open containers, '{' or '['
	i := skipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			j := skipSpace(s, i+1)
			if j < len(s) && s[j] == c+2 { // '{'+2 == '}', '['+2 == ']'
				i = j + 1
				break
			}
			stack = append(stack, c)
			i = j
			if c == '{' {
				if i = validKey(s, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = validStringAt(s, i); i < 0 {
				return false
			}
		case c == 't':
			if !hasPrefixAt(s, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !hasPrefixAt(s, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !hasPrefixAt(s, i, "null") {
				return false
			}
			i += 4
		default:
			if i = validNumberAt(s, i); i < 0 {
				return false
			}
		}
		// After a value: close containers, or go on after a comma.
		for {
			i = skipSpace(s, i)
			if len(stack) == 0 {
				return i == len(s)
			}
			if i >= len(s) {
				return false
			}
			top := stack[len(stack)-1]
			if s[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return false
			}
			i = skipSpace(s, i+1)
			if top == '{' {
				if i = validKey(s, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// validKey checks `"key" :` at i and returns where the value starts, or -1.
func validKey(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	if i = validStringAt(s, i); i < 0 {
		return -1
	}
	i = skipSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return -1
	}
	return skipSpace(s, i+1)
}

func hasPrefixAt(s string, i int, p string) bool { return len(s)-i >= len(p) && s[i:i+len(p)] == p }

// validStringAt checks the string that starts at s[i] ('"') and returns the index past it, or
// -1: no control character, only the escapes JSON allows.
func validStringAt(s string, i int) int {
	i++
	for {
		// Most strings (keys, ids, short values) end within two words: only longer runs are
		// worth a call of the vector kernel, which steps over two-byte escapes too.
		for words := 0; i+8 <= len(s); words++ {
			if words == 2 {
				i = strscan.PlainEnd(s, i)
				if i+8 > len(s) {
					break
				}
			}
			w := load64(s, i)
			q, bs := w^(lsb*'"'), w^(lsb*'\\')
			// A byte below 0x20, a quote or a backslash ends the fast path. The lowest set bit
			// of the mask is exact (borrows only run upwards), so jump straight to that byte.
			if m := ((w-lsb*0x20)&^w | (q-lsb)&^q | (bs-lsb)&^bs) & msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				// A two-byte escape (\n, \", \t...: every few dozen bytes of code and logs) is
				// stepped over here, without leaving the loop.
				if s[i] == '\\' && i+1 < len(s) && strscan.SimpleEscape[s[i+1]] {
					i += 2
					continue
				}
				break
			}
			i += 8
		}
		if i >= len(s) {
			return -1
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c < ' ':
			return -1
		case c == '\\':
			i++
			if i >= len(s) {
				return -1
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 0; k < 4; k++ {
					i++
					if i >= len(s) || !isHex(s[i]) {
						return -1
					}
				}
			default:
				return -1
			}
		}
		i++
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// validNumberAt checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at i; returns the index
// past it, or -1.
func validNumberAt(s string, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) || !isDigit(s[i]) {
		return -1
	}
	if s[i] == '0' {
		i++
	} else {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return -1
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return -1
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i
}

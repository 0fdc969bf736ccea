package recall

import (
	"math/bits"

	"github.com/ctxc/ctxc/internal/strscan"
)

// node is a JSON value of a line, at most shapeDepth containers deep: where it is, its key
// (quotes and all) when it is an object's member, and its container (-1: the line's value).
type node struct {
	parent     int
	key0, key1 int
	start, end int
}

// shapeDepth: the record (0), its members (1), the message's (2), its content blocks (3) and
// their members (4).
const shapeDepth = 4

// lineShape validates a line as transcript.ValidJSON does (the same walk, FuzzLineShape checks
// that they agree) and lists its values down to shapeDepth on the way, so that a record can be
// read without a second walk. escaped is set when a string holds a \u00XX escape of a byte
// spelled reports (a character of the pattern's literal).
func lineShape(s string, nodes []node, spelled func(c byte) bool) (out []node, escaped, ok bool) {
	type open struct {
		c    byte // '{' or '['
		node int  // -1: deeper than shapeDepth
	}
	var stack []open
	key0, key1 := 0, 0
	i := skipSpaceStr(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return nodes, escaped, false
		}
		idx := -1
		if len(stack) <= shapeDepth {
			parent := -1
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			}
			nodes = append(nodes, node{parent: parent, key0: key0, key1: key1, start: i})
			idx = len(nodes) - 1
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			j := skipSpaceStr(s, i+1)
			if j < len(s) && s[j] == c+2 { // '{'+2 == '}', '['+2 == ']'
				i = j + 1
				break
			}
			stack = append(stack, open{c, idx})
			i = j
			if c == '{' {
				key0 = i
				if i >= len(s) || s[i] != '"' {
					return nodes, escaped, false
				}
				if i = shapeString(s, i, spelled, &escaped); i < 0 {
					return nodes, escaped, false
				}
				key1 = i
				if i = afterColon(s, i); i < 0 {
					return nodes, escaped, false
				}
			} else {
				key0, key1 = 0, 0
			}
			continue
		case c == '"':
			if i = shapeString(s, i, spelled, &escaped); i < 0 {
				return nodes, escaped, false
			}
		case c == 't':
			if !hasPrefixAt(s, i, "true") {
				return nodes, escaped, false
			}
			i += 4
		case c == 'f':
			if !hasPrefixAt(s, i, "false") {
				return nodes, escaped, false
			}
			i += 5
		case c == 'n':
			if !hasPrefixAt(s, i, "null") {
				return nodes, escaped, false
			}
			i += 4
		default:
			if i = validNumberAt(s, i); i < 0 {
				return nodes, escaped, false
			}
		}
		if idx >= 0 {
			nodes[idx].end = i
		}
		// After a value: close containers, or go on after a comma.
		for {
			i = skipSpaceStr(s, i)
			if len(stack) == 0 {
				return nodes, escaped, i == len(s)
			}
			if i >= len(s) {
				return nodes, escaped, false
			}
			top := stack[len(stack)-1]
			if s[i] == top.c+2 {
				stack = stack[:len(stack)-1]
				i++
				if top.node >= 0 {
					nodes[top.node].end = i
				}
				continue
			}
			if s[i] != ',' {
				return nodes, escaped, false
			}
			i = skipSpaceStr(s, i+1)
			key0, key1 = 0, 0
			if top.c == '{' {
				key0 = i
				if i >= len(s) || s[i] != '"' {
					return nodes, escaped, false
				}
				if i = shapeString(s, i, spelled, &escaped); i < 0 {
					return nodes, escaped, false
				}
				key1 = i
				if i = afterColon(s, i); i < 0 {
					return nodes, escaped, false
				}
			}
			break
		}
	}
}

// afterColon checks the colon after a key that ends before i and returns where the value
// starts, or -1.
func afterColon(s string, i int) int {
	i = skipSpaceStr(s, i)
	if i >= len(s) || s[i] != ':' {
		return -1
	}
	return skipSpaceStr(s, i+1)
}

func skipSpaceStr(s string, i int) int {
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

func hasPrefixAt(s string, i int, p string) bool { return len(s)-i >= len(p) && s[i:i+len(p)] == p }

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// shapeString checks the string that starts at s[i] ('"') as transcript's validator does and
// returns the index past it, or -1; a \u00XX escape of a byte that spelled reports sets
// *escaped.
func shapeString(s string, i int, spelled func(c byte) bool, escaped *bool) int {
	i++
	for {
		// Short strings end within two words; longer runs go to the vector kernel, which steps
		// over two-byte escapes and stops at a \u escape (checked below for spelled bytes).
		for words := 0; i+8 <= len(s); words++ {
			if words == 2 {
				if i = strscan.PlainEnd(s, i); i+8 > len(s) {
					break
				}
			}
			w := load64(s, i)
			q, bs := w^(lsb*'"'), w^(lsb*'\\')
			// A byte below 0x20, a quote or a backslash ends the fast path; the lowest set
			// bit of the mask is exact (borrows only run upwards).
			if m := ((w-lsb*0x20)&^w | (q-lsb)&^q | (bs-lsb)&^bs) & msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8
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
				if i+4 >= len(s) {
					return -1
				}
				for k := 1; k <= 4; k++ {
					if _, ok := hexVal(s[i+k]); !ok {
						return -1
					}
				}
				if s[i+1] == '0' && s[i+2] == '0' {
					if b, _ := hexByte(s[i+3], s[i+4]); spelled(b) {
						*escaped = true
					}
				}
				i += 4
			default:
				return -1
			}
		}
		i++
	}
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

func hexByte(hi, lo byte) (byte, bool) {
	h, ok1 := hexVal(hi)
	l, ok2 := hexVal(lo)
	return h<<4 | l, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

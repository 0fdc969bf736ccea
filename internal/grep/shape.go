package grep

import (
	"strings"

	"github.com/ctxc/ctxc/internal/strscan"
)

// node is a JSON value of a line, at most shapeDepth containers deep: where it is, its key
// (quotes and all) when it is an object's member, and its container (-1: the line's value).
type node struct {
	parent     int
	key0, key1 int
	start, end int
}

// raw is the node's value as written in s, the line lineShape listed it from.
func (n *node) raw(s string) string { return s[n.start:n.end] }

// shapeDepth: the record (0), its members (1), the message's (2), its content blocks (3) and
// their members (4).
const shapeDepth = 4

// lineShape validates a line as the transcript readers do (with the same pieces, from
// internal/strscan; FuzzLineShape checks it against gjson) and lists its values down to
// shapeDepth on the way, so that a record can be read without a second walk. s is the line,
// and may go on past it: a '\n' (JSON white space, but never inside a line) ends the line, so
// that the walk that validates a line also finds where it ends (grep's segments: one pass over
// the line's bytes, not a search for its end and then a walk). end is where the line ends (the
// '\n' or len(s)) when it is valid; a walk never reads past a '\n' (a string stops at it, a
// control character), so an invalid line is said so whatever follows it. esc tells where its
// \u escapes are.
func lineShape(s string, nodes []node, spelled func(c byte) bool) (out []node, end int, esc uEscapes, ok bool) {
	type open struct {
		c    byte // '{' or '['
		node int  // -1: deeper than shapeDepth
	}
	var stack []open
	esc.first = -1
	key0, key1 := 0, 0
	i := strscan.SkipLineSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return nodes, -1, esc, false
		}
		idx := -1
		if len(stack) <= shapeDepth {
			parent := -1
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			}
			// Stored field by field: an appended node{...} was built on the stack and
			// copied in 16-byte moves that wait for its 8-byte stores to retire (a failed
			// store forwarding: a fifth of the walk's time).
			if len(nodes) == cap(nodes) {
				nodes = append(nodes, node{})
			} else {
				nodes = nodes[:len(nodes)+1]
			}
			idx = len(nodes) - 1
			n := &nodes[idx]
			n.parent, n.key0, n.key1, n.start, n.end = parent, key0, key1, i, 0
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			j := strscan.SkipLineSpace(s, i+1)
			if j < len(s) && s[j] == c+2 { // '{'+2 == '}', '['+2 == ']'
				i = j + 1
				break
			}
			stack = append(stack, open{c, idx})
			i = j
			if c == '{' {
				key0 = i
				if key1, i = shapeKey(s, i, spelled, &esc); i < 0 {
					return nodes, -1, esc, false
				}
			} else {
				key0, key1 = 0, 0
			}
			continue
		case c == '"':
			if i = shapeString(s, i, spelled, &esc); i < 0 {
				return nodes, -1, esc, false
			}
		case c == 't':
			if !strscan.HasPrefixAt(s, i, "true") {
				return nodes, -1, esc, false
			}
			i += 4
		case c == 'f':
			if !strscan.HasPrefixAt(s, i, "false") {
				return nodes, -1, esc, false
			}
			i += 5
		case c == 'n':
			if !strscan.HasPrefixAt(s, i, "null") {
				return nodes, -1, esc, false
			}
			i += 4
		default:
			if i = strscan.NumberEnd(s, i); i < 0 {
				return nodes, -1, esc, false
			}
		}
		if idx >= 0 {
			nodes[idx].end = i
		}
		// After a value: close containers, or go on after a comma.
		for {
			i = strscan.SkipLineSpace(s, i)
			if len(stack) == 0 {
				if i == len(s) || s[i] == '\n' {
					return nodes, i, esc, true
				}
				return nodes, -1, esc, false
			}
			if i >= len(s) {
				return nodes, -1, esc, false
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
				return nodes, -1, esc, false
			}
			i = strscan.SkipLineSpace(s, i+1)
			key0, key1 = 0, 0
			if top.c == '{' {
				key0 = i
				if key1, i = shapeKey(s, i, spelled, &esc); i < 0 {
					return nodes, -1, esc, false
				}
			}
			break
		}
	}
}

// shapeKey checks `"key" :` at i and returns where the key ends and where its value starts
// (-1 when the key or its colon is not there or not valid).
func shapeKey(s string, i int, spelled func(c byte) bool, esc *uEscapes) (keyEnd, value int) {
	if i >= len(s) || s[i] != '"' {
		return -1, -1
	}
	if keyEnd = strscan.ShortStringEnd(s, i); keyEnd < 0 {
		if keyEnd = shapeLongString(s, i, spelled, esc); keyEnd < 0 {
			return -1, -1
		}
		if strings.IndexByte(s[i:keyEnd], '\\') >= 0 {
			esc.keys = true
		}
	}
	return keyEnd, afterColon(s, keyEnd)
}

// afterColon checks the colon after a key that ends before i and returns where the value
// starts, or -1.
func afterColon(s string, i int) int {
	i = strscan.SkipLineSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return -1
	}
	return strscan.SkipLineSpace(s, i+1)
}

// uEscapes is what lineShape saw of a line's \u escapes.
type uEscapes struct {
	// spelled: a \u00XX escape of a byte that spelled reports (a character of the pattern's
	// literal, which the prefilter's raw bytes would not show).
	spelled bool
	// first and last are the indexes of the first and last \u escapes' backslashes; first is
	// -1 when there is none.
	first, last int
	// keys: a key is written with an escape (which may spell a key that the fast readers
	// look for).
	keys bool
}

// in reports whether s[from:to] may hold a \u escape.
func (e *uEscapes) in(from, to int) bool {
	return e.first >= 0 && e.first < to && e.last >= from
}

// shapeString checks the string that starts at s[i] ('"') as transcript's validator does and
// returns the index past it, or -1, noting its \u escapes in esc.
func shapeString(s string, i int, spelled func(c byte) bool, esc *uEscapes) int {
	if j := strscan.ShortStringEnd(s, i); j >= 0 {
		return j
	}
	return shapeLongString(s, i, spelled, esc)
}

// shapeLongString is shapeString for a string that ShortStringEnd does not end.
func shapeLongString(s string, i int, spelled func(c byte) bool, esc *uEscapes) int {
	return strscan.StringEnd(s, i, func(at int) {
		if esc.first < 0 {
			esc.first = at
		}
		esc.last = at
		if s[at+2] == '0' && s[at+3] == '0' {
			if b, _ := hexByte(s[at+4], s[at+5]); spelled(b) {
				esc.spelled = true
			}
		}
	})
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

// twoMembers finds the members keyed a and b (as written, quotes and all) of the container
// nodes[parent] of a line s that lineShape listed: their nodes, -1 when absent. ok is false
// when one of them is there twice (the decoder would read the last), when another member's key
// is written with an escape (it may spell a or b), or when other, told of every other member
// (its key and value as written), says so.
func twoMembers(s string, nodes []node, esc *uEscapes, parent int, a, b string, other func(k, v string) bool) (ia, ib int, ok bool) {
	ia, ib = -1, -1
	for i := parent + 1; i < len(nodes) && nodes[i].start < nodes[parent].end; i++ { // its subtree
		n := &nodes[i]
		if n.parent != parent {
			continue
		}
		switch k := s[n.key0:n.key1]; k {
		case a, b:
			at := &ia
			if k == b {
				at = &ib
			}
			if *at >= 0 {
				return -1, -1, false
			}
			*at = i
		default:
			if esc.keys && strings.IndexByte(k, '\\') >= 0 || other != nil && !other(k, n.raw(s)) {
				return -1, -1, false
			}
		}
	}
	return ia, ib, true
}

package grep

import (
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
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
	var stack []shapeOpen
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
			nodes, idx = addNode(nodes, stack, key0, key1, i)
		}
		switch c := s[i]; c {
		case '"':
			i = shapeString(s, i, spelled, &esc)
		case '{', '[':
			j := strscan.SkipLineSpace(s, i+1)
			if j < len(s) && s[j] == c+closeDelta {
				i = j + 1 // empty
				break
			}
			// A container with members: the first one's value starts at i.
			stack = append(stack, shapeOpen{c, idx})
			if key0, key1, i = firstMember(s, j, c, spelled, &esc); i < 0 {
				return nodes, -1, esc, false
			}
			continue
		default:
			i = literalEnd(s, i)
		}
		if i < 0 {
			return nodes, -1, esc, false
		}
		if idx >= 0 {
			nodes[idx].end = i
		}
		// After the value: the containers that end there, then a comma and the next value, or
		// the line's end.
		stack, key0, key1, i = nextValue(s, i, stack, nodes, spelled, &esc)
		switch {
		case i < 0:
			return nodes, -1, esc, false
		case len(stack) == 0:
			return nodes, i, esc, true
		}
	}
}

// closeDelta is how far a container's closing byte is from its opening one: '{'+2 == '}',
// '['+2 == ']'.
const closeDelta = '}' - '{'

// shapeOpen is a container that lineShape is inside of.
type shapeOpen struct {
	c    byte // '{' or '['
	node int  // -1: deeper than shapeDepth
}

// addNode appends the node of a value that starts at i (key0, key1: its key, 0 when it has
// none), in the innermost container of stack, and returns its index. The fields are stored one
// by one: an appended node{...} was built on the stack and copied in 16-byte moves that wait
// for its 8-byte stores to retire (a failed store forwarding: a fifth of the walk's time).
func addNode(nodes []node, stack []shapeOpen, key0, key1, i int) ([]node, int) {
	parent := -1
	if len(stack) > 0 {
		parent = stack[len(stack)-1].node
	}
	if len(nodes) == cap(nodes) {
		nodes = append(nodes, node{})
	} else {
		nodes = nodes[:len(nodes)+1]
	}
	idx := len(nodes) - 1
	n := &nodes[idx]
	n.parent, n.key0, n.key1, n.start, n.end = parent, key0, key1, i, 0
	return nodes, idx
}

// firstMember reads the start of a container c ('{' or '['), not empty, whose first member
// starts at s[j]: where its value starts (-1 when the line is not valid) and, in an object,
// its key (quotes and all, s[key0:key1]).
func firstMember(s string, j int, c byte, spelled func(c byte) bool, esc *uEscapes) (key0, key1, value int) {
	if c == '[' {
		return 0, 0, j
	}
	key1, value = shapeKey(s, j, spelled, esc)
	return j, key1, value
}

// literalEnd returns where the literal (true, false or null) or number that starts at s[i]
// ends, or -1 when it is not valid.
func literalEnd(s string, i int) int {
	var lit string
	switch s[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	case 'n':
		lit = "null"
	default:
		return strscan.NumberEnd(s, i)
	}
	if !strscan.HasPrefixAt(s, i, lit) {
		return -1
	}
	return i + len(lit)
}

// nextValue goes on after a value that ends at i: it closes the containers that end there
// (their nodes' ends set) and returns where the next value starts, after a comma (in an object,
// after its key: s[key0:key1]), or, once the line's value is whole (stack empty), where the
// line ends. next is -1 when the line is not valid.
func nextValue(s string, i int, stack []shapeOpen, nodes []node, spelled func(c byte) bool, esc *uEscapes) (_ []shapeOpen, key0, key1, next int) {
	for {
		i = strscan.SkipLineSpace(s, i)
		if len(stack) == 0 {
			if i == len(s) || s[i] == '\n' {
				return stack, 0, 0, i
			}
			return stack, 0, 0, -1
		}
		if i >= len(s) {
			return stack, 0, 0, -1
		}
		top := stack[len(stack)-1]
		if s[i] == top.c+closeDelta {
			stack = stack[:len(stack)-1]
			i++
			if top.node >= 0 {
				nodes[top.node].end = i
			}
			continue
		}
		if s[i] != ',' {
			return stack, 0, 0, -1
		}
		i = strscan.SkipLineSpace(s, i+1)
		if top.c == '[' {
			return stack, 0, 0, i
		}
		key1, next = shapeKey(s, i, spelled, esc)
		return stack, i, key1, next
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
			if b, _ := jsonl.HexByte(s[at+4], s[at+5]); spelled(b) {
				esc.spelled = true
			}
		}
	})
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

package index

import (
	"bytes"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// triBits is the number of distinct trigrams: three bytes.
const triBits = 24

// trigramSet collects the distinct trigrams of raw bytes, lower-cased (ASCII), and the
// printable ASCII characters the bytes spell as JSON escapes (\u00XX, \/). Grep's prefilter
// looks for its literal in a line's raw bytes, or for an escape of one of the literal's
// characters; a file whose bytes hold neither cannot hold a match. Reused from file to file:
// reset clears only the bits it set.
type trigramSet struct {
	bits    []uint64 // 1<<triBits bits
	list    []uint32 // the trigrams set, in the order first seen
	escaped escapeMask
	t       uint32 // the last two bytes seen
	n       int    // bytes seen since reset (up to 2)
	esc     []byte // the bytes of an escape cut by the end of a chunk
	joined  []byte // those bytes and the next chunk's first (completeEscapes)
}

// escapeMask has a bit for each printable ASCII character (lower-cased) written as an escape.
// Its bit of NUL, which is never one of those, says instead that the lines hold a compaction
// record.
type escapeMask [2]uint64

func (m *escapeMask) set(c byte)             { m[c>>6] |= 1 << (c & 63) }
func (m *escapeMask) setCompactions()        { m[0] |= 1 }
func (m escapeMask) compactions() bool       { return m[0]&1 != 0 }
func (m escapeMask) chars() escapeMask       { return escapeMask{m[0] &^ 1, m[1]} }
func (m escapeMask) has(c byte) bool         { return m[c>>6]&(1<<(c&63)) != 0 }
func (m escapeMask) any() bool               { return m[0]|m[1] != 0 }
func newTrigramSet() *trigramSet             { return &trigramSet{bits: make([]uint64, 1<<triBits/64)} }
func (s *trigramSet) contains(t uint32) bool { return s.bits[t>>6]&(1<<(t&63)) != 0 }

// add takes in the next bytes of the text (a file's bytes, chunk after chunk).
func (s *trigramSet) add(b []byte) {
	t, n := s.t, s.n
	for _, c := range b {
		t = (t<<8 | uint32(lowerASCII[c])) & (1<<triBits - 1)
		if n < 2 {
			n++
			continue
		}
		if w := &s.bits[t>>6]; *w&(1<<(t&63)) == 0 {
			*w |= 1 << (t & 63)
			s.list = append(s.list, t)
		}
	}
	s.t, s.n = t, n
	s.addEscapes(b)
}

// addEscapes records the characters b spells as \u00XX or \/ escapes. An escape that may go
// on past the end of b waits for the next chunk (s.esc), so that bytes cut anywhere give the
// escapes of the bytes whole.
func (s *trigramSet) addEscapes(b []byte) {
	i := 0
	if len(s.esc) > 0 {
		if i = s.completeEscapes(b); i < 0 {
			return
		}
	}
	for i < len(b) {
		k := bytes.IndexByte(b[i:], '\\') // (most bytes are not escapes: found a word at a time)
		if k < 0 {
			return
		}
		i += k
		if escapeCut(b, i) {
			s.esc = append(s.esc[:0], b[i:]...)
			return
		}
		i = s.escapeAt(b, i) + 1
	}
}

// escapeCut reports whether the escape at b[i] may go on past the end of b.
func escapeCut(b []byte, i int) bool { return i+1 >= len(b) || b[i+1] == 'u' && i+6 > len(b) }

// completeEscapes reads the escapes of the bytes kept from the last chunk (s.esc, at most 5)
// followed by b's first bytes; it says where in b the scan goes on, or -1 when b was kept too
// (an escape still cut: b is shorter than one).
func (s *trigramSet) completeEscapes(b []byte) int {
	old := len(s.esc)
	joined := append(append(s.joined[:0], s.esc...), b[:min(6, len(b))]...)
	s.joined, s.esc = joined, s.esc[:0]
	j := 0
	for j < old {
		k := bytes.IndexByte(joined[j:old], '\\')
		if k < 0 {
			break
		}
		j += k
		if escapeCut(joined, j) { // (b is shorter than 6 bytes: all of it is in joined)
			s.esc = append(s.esc, joined[j:]...)
			return -1
		}
		j = s.escapeAt(joined, j) + 1
	}
	return max(j-old, 0)
}

// escapeAt reads the escape at b[i] (a backslash, with the bytes escapeCut asks for) and
// returns the index of its last byte. A \u not followed by four hex digits is no escape: the
// scan goes on after the u.
func (s *trigramSet) escapeAt(b []byte, i int) int {
	switch b[i+1] {
	case '/':
		s.escaped.set('/')
	case 'u':
		hi, ok1 := jsonl.HexByte(b[i+2], b[i+3])
		lo, ok2 := jsonl.HexByte(b[i+4], b[i+5])
		if !ok1 || !ok2 {
			return i + 1
		}
		if c := lo; hi == 0 && c >= 0x20 && c < 0x7f {
			s.escaped.set(lower(c))
		}
		return i + 5
	}
	return i + 1
}

// reset empties the set for the next file.
func (s *trigramSet) reset() {
	s.resetGrams()
	s.escaped, s.t, s.n, s.esc = escapeMask{}, 0, 0, s.esc[:0]
}

// resetGrams empties the trigrams for the next block of the same file (its escapes stay).
func (s *trigramSet) resetGrams() {
	for _, t := range s.list {
		s.bits[t>>6] = 0
	}
	s.list = s.list[:0]
}

// litTrigrams are the trigrams of a literal, lower-cased (the literal is at least 3 bytes).
func litTrigrams(lit []byte) []uint32 {
	var out []uint32
	seen := map[uint32]bool{}
	for i := 0; i+3 <= len(lit); i++ {
		t := uint32(lower(lit[i]))<<16 | uint32(lower(lit[i+1]))<<8 | uint32(lower(lit[i+2]))
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// lowerASCII lower-cases a byte (ASCII letters only), without a branch.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = lower(byte(i))
	}
	return t
}()

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

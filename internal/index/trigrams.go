package index

import "github.com/ctxc/ctxc/internal/jsonl"

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
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t = (t<<8 | uint32(c)) & (1<<triBits - 1)
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

// addEscapes records the characters b spells as \u00XX or \/ escapes. An escape cut by the
// end of b is completed by the next chunk.
func (s *trigramSet) addEscapes(b []byte) {
	if len(s.esc) > 0 {
		need := 6 - len(s.esc)
		if need > len(b) {
			need = len(b)
		}
		joined := append(append([]byte{}, s.esc...), b[:need]...)
		s.esc = s.esc[:0]
		s.escapeAt(joined, 0, true)
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 >= len(b) || b[i+1] == 'u' && i+6 > len(b) {
			s.esc = append(s.esc[:0], b[i:]...)
			return
		}
		i = s.escapeAt(b, i, false)
	}
}

// escapeAt reads the escape at b[i] (a backslash) and returns the index of its last byte.
func (s *trigramSet) escapeAt(b []byte, i int, joined bool) int {
	if i+1 >= len(b) {
		return i
	}
	switch b[i+1] {
	case '/':
		s.escaped.set('/')
	case 'u':
		if i+6 <= len(b) && b[i+2] == '0' && b[i+3] == '0' {
			if c, ok := jsonl.HexByte(b[i+4], b[i+5]); ok && c >= 0x20 && c < 0x7f {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				s.escaped.set(c)
			}
		}
		return min(i+5, len(b)-1)
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

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

package summarize

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cue search over whole texts. Lowercasing every line and searching it once per cue made the
// extractive summarizer cost more than reading the transcript (a line is ~50 bytes, and each
// search has a fixed cost). Instead a text is lowercased once, each cue is searched once over all
// of it, and the lines are then matched against the sorted hit positions. The results are the
// same as the per-line search (cuescan_test.go compares both on fuzzed input).

// cueSet is a list of cues prepared for searching: each cue is searched through its rarest byte
// (searching for a first byte would stop at every "e" of English text), and cues with the same
// rarest byte share one search.
type cueSet struct {
	cues   []string
	anchor []int   // per cue: index of its rarest byte
	groups [][]int // cue indices sharing one rarest byte
	bytes  []byte  // per group: that byte
}

func newCueSet(cues []string) *cueSet {
	s := &cueSet{cues: cues, anchor: make([]int, len(cues))}
	for ci, c := range cues {
		s.anchor[ci] = anchor(c)
		b := c[s.anchor[ci]]
		g := 0
		for g < len(s.bytes) && s.bytes[g] != b {
			g++
		}
		if g == len(s.bytes) {
			s.bytes = append(s.bytes, b)
			s.groups = append(s.groups, nil)
		}
		s.groups[g] = append(s.groups[g], ci)
	}
	return s
}

// cueHits holds the positions of each cue of a set in one lowercased text, ascending, with a
// cursor per cue for a forward walk over the lines.
type cueHits struct {
	cues []string
	pos  [][]int
	cur  []int
}

func (h *cueHits) find(low []byte, set *cueSet) {
	cues := set.cues
	h.cues = cues
	if cap(h.pos) < len(cues) {
		h.pos = make([][]int, len(cues))
		h.cur = make([]int, len(cues))
	}
	h.pos, h.cur = h.pos[:len(cues)], h.cur[:len(cues)]
	for ci := range cues {
		h.pos[ci], h.cur[ci] = h.pos[ci][:0], 0
	}
	for g, b := range set.bytes {
		group := set.groups[g]
		for off := 0; off < len(low); {
			k := bytes.IndexByte(low[off:], b)
			if k < 0 {
				break
			}
			at := off + k
			for _, ci := range group {
				c := cues[ci]
				if p := at - set.anchor[ci]; p >= 0 && p+len(c) <= len(low) && string(low[p:p+len(c)]) == c {
					h.pos[ci] = append(h.pos[ci], p)
				}
			}
			off = at + 1
		}
	}
}

// first returns the position of the first occurrence of cue ci that lies wholly in [from, to),
// or -1. Calls must come with non-decreasing from (the walk goes forward over the lines).
func (h *cueHits) first(ci, from, to int) int {
	ps := h.pos[ci]
	j := h.cur[ci]
	for j < len(ps) && ps[j] < from {
		j++
	}
	h.cur[ci] = j
	// Only the first hit at or after from can be the line's first occurrence: a later one that
	// fits would make the first one fit as well.
	if j < len(ps) && ps[j]+len(h.cues[ci]) <= to {
		return ps[j]
	}
	return -1
}

// any reports whether some cue lies wholly in [from, to).
func (h *cueHits) any(from, to int) bool {
	for ci := range h.cues {
		if h.first(ci, from, to) >= 0 {
			return true
		}
	}
	return false
}

// nextLine returns the bounds of the line starting at ls in t, trimmed exactly as
// strings.TrimSpace trims it ([ts, te), empty when ts == te), and where the next line starts.
func nextLine(t string, ls int) (ts, te, next int) {
	le := len(t)
	next = len(t)
	if k := strings.IndexByte(t[ls:], '\n'); k >= 0 {
		le, next = ls+k, ls+k+1
	}
	ts, te = ls, le
	for ts < te && asciiSpace(t[ts]) {
		ts++
	}
	if ts < te && t[ts] >= utf8.RuneSelf {
		ts = te - len(strings.TrimLeftFunc(t[ts:te], unicode.IsSpace))
	}
	for te > ts && asciiSpace(t[te-1]) {
		te--
	}
	if te > ts && t[te-1] >= utf8.RuneSelf {
		te = ts + len(strings.TrimRightFunc(t[ts:te], unicode.IsSpace))
	}
	return ts, te, next
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// lowerASCII writes the ASCII-lowercased s into dst's storage (byte offsets are kept). Eight
// bytes at a time: a byte gets 0x20 added when it is in 'A'..'Z'.
func lowerASCII(dst []byte, s string) []byte {
	if cap(dst) < len(s) {
		dst = make([]byte, len(s), len(s)+len(s)/4)
	}
	dst = dst[:len(s)]
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		h := x & lo7
		geA := h + 0x3f3f3f3f3f3f3f3f // high bit set when the low 7 bits are >= 'A' (0x41)
		gtZ := h + 0x2525252525252525 // high bit set when they are > 'Z' (0x5a)
		upper := (geA ^ gtZ) & ^x & hi
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// startsWithAny reports whether b starts with one of the prefixes.
func startsWithAny(b []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if len(b) >= len(p) && string(b[:len(p)]) == p {
			return true
		}
	}
	return false
}

// clipLen is len(clip(s, n)) without building the string.
func clipLen(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// commonness ranks bytes by how often they occur in English text and logs (higher: more
// common); bytes not listed are rare.
var commonness = func() (r [256]byte) {
	const byFrequency = "zqjxkvbpygfwmucldrhsnioate " // ascending
	for i := 0; i < len(byFrequency); i++ {
		r[byFrequency[i]] = byte(i + 1)
	}
	return r
}()

// anchor is the index of the rarest byte of cue (the first of equals).
func anchor(cue string) int {
	best := 0
	for i := 1; i < len(cue); i++ {
		if commonness[cue[i]] < commonness[cue[best]] {
			best = i
		}
	}
	return best
}

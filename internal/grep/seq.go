package grep

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// seqMatch finds the matches of a pattern that is a fixed sequence of characters and classes
// that starts with a literal (context.Context, func \w+\(, id=[0-9a-f]{8}): what the regexp
// package finds, without its machinery. Go's regexp confirms such a match with its
// backtracker, which clears a bitmap the size of the text and sets up a machine per call: on
// a frequent pattern that was most of grep's time spent after the prefilter. A sequence's
// matches all hold one character per element, so the leftmost match is the first place
// where every element matches, in turn, the character decoded there; the regexp package
// tries the places where the literal prefix occurs (strings.Index), in order, and decodes
// characters as this does (an invalid byte is U+FFFD, one byte wide).
// FuzzSeqMatch holds it to regexp.FindStringIndex.
type seqMatch struct {
	prefix string    // the leading literal characters (not U+FFFD), as regexp's Prog.Prefix
	rareAt int       // the index of the prefix's rarest byte, which find looks for
	rest   []seqElem // the elements after the prefix
}

// seqElem is one character of a sequence: a literal, a class (ranges as syntax.Regexp holds
// them: pairs lo, hi), any character but '\n', or any.
type seqElem struct {
	op     syntax.Op // OpLiteral, OpCharClass, OpAnyCharNotNL, OpAnyChar
	r      rune
	ranges []rune
}

// compileSeq returns the matcher of re (parsed, not simplified) when it is such a sequence,
// else nil.
func compileSeq(re *syntax.Regexp) *seqMatch {
	var elems []seqElem
	if !seqElems(re.Simplify(), &elems) {
		return nil
	}
	m := &seqMatch{}
	var prefix strings.Builder
	n := 0
	for n < len(elems) && elems[n].op == syntax.OpLiteral && elems[n].r != utf8.RuneError && utf8.ValidRune(elems[n].r) {
		prefix.WriteRune(elems[n].r)
		n++
	}
	if n == 0 {
		return nil // no literal to look for: regexp steps through every character
	}
	m.prefix, m.rest = prefix.String(), elems[n:]
	m.rareAt = rare([]byte(m.prefix))
	return m
}

// seqElems appends re's characters to out, or reports that re is not a sequence of them.
func seqElems(re *syntax.Regexp, out *[]seqElem) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, r := range re.Rune {
			*out = append(*out, seqElem{op: syntax.OpLiteral, r: r})
		}
	case syntax.OpCharClass:
		// A class the parser built with case folding holds both cases already (and the
		// regexp compiler drops the fold flag of any class but a single-rune one).
		if len(re.Rune) == 0 {
			return false
		}
		if len(re.Rune) == 2 && re.Rune[0] == re.Rune[1] && re.Flags&syntax.FoldCase != 0 {
			return false
		}
		*out = append(*out, seqElem{op: syntax.OpCharClass, ranges: re.Rune})
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		*out = append(*out, seqElem{op: re.Op})
	case syntax.OpCapture:
		return seqElems(re.Sub[0], out)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !seqElems(s, out) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// find is regexp.FindStringIndex for the sequence: the leftmost match's start and end, or ok
// false.
func (m *seqMatch) find(s string) (start, end int, ok bool) {
	// The prefix's occurrences in order, found by its rarest byte (strings.Index looks
	// for the first byte: a frequent one stops it every few bytes).
	n, k := len(m.prefix), m.rareAt
	for from := 0; from+n <= len(s); {
		j := strings.IndexByte(s[from+k:len(s)-n+k+1], m.prefix[k])
		if j < 0 {
			return 0, 0, false
		}
		p := from + j
		if s[p:p+n] == m.prefix {
			if e, ok := m.restAt(s, p+n); ok {
				return p, e, true
			}
		}
		// Every byte is a place the regexp package may try: an occurrence of the prefix
		// starts at a character's first byte.
		from = p + 1
	}
	return 0, 0, false
}

// restAt matches the elements after the prefix from s[i], and returns the match's end.
func (m *seqMatch) restAt(s string, i int) (int, bool) {
	for k := range m.rest {
		if i >= len(s) {
			return 0, false
		}
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		e := &m.rest[k]
		switch e.op {
		case syntax.OpLiteral:
			if r != e.r {
				return 0, false
			}
		case syntax.OpAnyCharNotNL:
			if r == '\n' {
				return 0, false
			}
		case syntax.OpCharClass:
			if !inRanges(e.ranges, r) {
				return 0, false
			}
		}
		i += w
	}
	return i, true
}

func inRanges(ranges []rune, r rune) bool {
	for j := 0; j+1 < len(ranges); j += 2 {
		if r < ranges[j] {
			return false // ranges are sorted
		}
		if r <= ranges[j+1] {
			return true
		}
	}
	return false
}

// find is the leftmost match of the pattern in s: its start and end (loc), or ok false.
func (p *Pattern) find(s string) (loc [2]int, ok bool) {
	if p.seq != nil {
		loc[0], loc[1], ok = p.seq.find(s)
		return loc, ok
	}
	if m := p.re.FindStringIndex(s); m != nil {
		return [2]int{m[0], m[1]}, true
	}
	return loc, false
}

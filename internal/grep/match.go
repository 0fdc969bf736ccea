package grep

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/strscan"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Pattern is a compiled search: the regexp that decides, and a byte-level prefilter that picks
// the raw lines that can hold a match so that only those are decoded.
type Pattern struct {
	re *regexp.Regexp
	// lit is a run of the pattern's required literal made only of characters that a JSON
	// writer writes as they are (printable ASCII but '"' and '\'): a line whose decoded text
	// matches holds lit in its raw bytes, unless one of lit's characters was written as a
	// \u00XX escape, which JSON allows and no writer in use does for these characters: the
	// prefilter picks the lines that hold lit or such an escape (nextEscape). nil: no
	// prefilter.
	lit    []byte
	fold   bool         // lit is compared ignoring ASCII case
	rareAt int          // index of lit's rarest byte
	pair   strscan.Pair // lit's two rarest bytes, at their offsets (with -i, both cases)
	// maxLen bounds the bytes of a match when the pattern has no assertion (^, $, \b...):
	// whether it matches at a position then depends only on the maxLen bytes from there, so
	// the index can decide on a piece of a text. -1: unbounded, or an assertion.
	maxLen int
	// noHighlights: snippets leave Matches empty (a search for every match in each snippet
	// is a tenth of a grep's time when most lines match, and only a terminal shows them).
	noHighlights bool
	// seq finds matches in place of re when the pattern is a fixed sequence of characters
	// (seqMatch); nil: re does.
	seq *seqMatch
}

// WithoutHighlights makes the pattern's snippets leave Matches empty, and returns it.
func (p *Pattern) WithoutHighlights() *Pattern {
	p.noHighlights = true
	return p
}

// minLit is the shortest literal worth a prefilter.
const minLit = 3

// Compile builds a pattern: an RE2 regexp, or with fixed a literal string; fold ignores case.
func Compile(pattern string, fixed, fold bool) (*Pattern, error) {
	expr := pattern
	if fixed {
		expr = regexp.QuoteMeta(pattern)
	}
	if fold {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("bad pattern: %w", err)
	}
	p := &Pattern{re: re, maxLen: -1}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return p, nil
	}
	p.maxLen = matchBound(tree)
	p.seq = compileSeq(tree)
	runes, rfold := requiredLiteral(tree.Simplify())
	best := safeBest(runes, rfold)
	if len(best) >= minLit {
		p.setLit([]byte(best), rfold)
	}
	return p, nil
}

// setLit sets the prefilter's literal (fold: ignoring ASCII case) and its rarest bytes.
func (p *Pattern) setLit(lit []byte, fold bool) {
	p.lit, p.fold = lit, fold
	if fold {
		p.lit = bytes.ToLower(lit)
	}
	p.rareAt = rare(p.lit)
	p.pair = rarePair(p.lit, p.rareAt, p.fold)
}

// MayMatchOutside reports whether a message of format f can match where its line's raw bytes
// do not hold the literal: when the literal meets one of the texts the format's reader wraps
// around what a line holds (transcript.Wrappers: pi's "The following is a summary of a
// branch..."), inside it or across its edge. Such a file is read with every line decoded.
func (p *Pattern) MayMatchOutside(f transcript.Format) bool {
	if p.lit == nil {
		return false
	}
	for _, w := range transcript.Wrappers(f) {
		if p.fold {
			w.Text = strings.ToLower(w.Text)
		}
		if meets(string(p.lit), w) {
			return true
		}
	}
	return false
}

// meets reports whether lit occurs in w, or spans an edge of w that the line's text touches:
// lit's start is w's end (text follows w), or lit's end is w's start (text comes before w).
func meets(lit string, w transcript.Wrapper) bool {
	if strings.Contains(w.Text, lit) {
		return true
	}
	for k := 1; k < len(lit); k++ {
		if w.Before && strings.HasPrefix(w.Text, lit[len(lit)-k:]) || w.After && strings.HasSuffix(w.Text, lit[:k]) {
			return true
		}
	}
	return false
}

// Literal is the prefilter's literal (nil: none): every line that matches holds it in its raw
// bytes (ignoring ASCII case when the pattern does), or spells one of its characters as a
// \u00XX escape. The index chooses the files to read by it.
func (p *Pattern) Literal() []byte { return p.lit }

// requiredLiteral finds a literal that every match contains: the pattern itself when it is a
// literal, else the longest literal among the parts of a concatenation.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		var bestFold bool
		for _, s := range re.Sub {
			r, f := requiredLiteral(s)
			if betterLiteral(safeBest(r, f), safeBest(best, bestFold)) {
				best, bestFold = r, f
			}
		}
		return best, bestFold
	}
	return nil, false
}

// betterLiteral reports whether a is a better prefilter literal than b: longer, or as long
// and made of rarer bytes (context.Context: "Context", whose capital is rarer in code than
// the word "context", which a line may hold many times apart from any match).
func betterLiteral(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	ra, rb := 0, 0
	for i := range len(a) {
		ra += byteRank(a[i])
		rb += byteRank(b[i])
	}
	return ra < rb
}

// matchBound is the most bytes a match of re can span, or -1 when that is unbounded or re has
// an assertion (which looks at text outside the match).
func matchBound(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if l := utf8.RuneLen(r); l > 0 && re.Flags&syntax.FoldCase == 0 {
				n += l
			} else {
				n += utf8.UTFMax // another case of a rune may be longer (k, the Kelvin sign)
			}
		}
		return n
	case syntax.OpCharClass:
		n := 0
		for i := 1; i < len(re.Rune); i += 2 {
			if l := utf8.RuneLen(re.Rune[i]); l > n {
				n = l
			} else if l < 0 {
				n = utf8.UTFMax
			}
		}
		return n
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return matchBound(re.Sub[0])
	case syntax.OpRepeat:
		if n := matchBound(re.Sub[0]); n >= 0 && re.Max >= 0 {
			return n * re.Max
		}
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := matchBound(s)
			switch {
			case m < 0:
				return -1
			case re.Op == syntax.OpConcat:
				n += m
			case m > n:
				n = m
			}
		}
		return n
	}
	return -1
}

func safeBest(r []rune, fold bool) string {
	best := ""
	for _, s := range safeRuns(r, fold) {
		if len(s) > len(best) {
			best = s
		}
	}
	return best
}

// escapedBySome are the printable ASCII characters that some JSON writers escape: the quote and
// the backslash always; '<', '>', '&' (Go), "'" and '/' (PHP, some JavaScript libraries).
const escapedBySome = "\"\\<>&'/"

// safeRuns splits a literal into the runs of characters that JSON writers never escape except
// as \u00XX (printable ASCII but the quote and the backslash). Ignoring case, k and s are left
// out too: they also match the Kelvin sign and the long s, which are not ASCII.
func safeRuns(r []rune, fold bool) []string {
	var out []string
	var b strings.Builder
	for _, c := range r {
		ks := fold && (c == 'k' || c == 'K' || c == 's' || c == 'S')
		if c >= 0x20 && c < 0x7f && !strings.ContainsRune(escapedBySome, c) && !ks {
			b.WriteRune(c)
			continue
		}
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// byteRank estimates how common a byte is in JSONL transcripts (higher: more common), to search
// for the rarest byte of the literal with memchr and compare around it, as ripgrep does.
func byteRank(c byte) int {
	const common = " etaoinsrhldcum\":,{}/.pfgwy_bv-0123456789"
	if i := strings.IndexByte(common, lower(c)); i >= 0 {
		r := 200 - i
		if c >= 'A' && c <= 'Z' {
			r -= 80 // capitals are rarer than their lower case
		}
		return r
	}
	return 50
}

// rare is the index in lit of its rarest byte.
func rare(lit []byte) int {
	best := 0
	for i := range lit {
		if byteRank(lit[i]) < byteRank(lit[best]) {
			best = i
		}
	}
	return best
}

// nextLit returns the index of the next occurrence of lit in b at or after i, or -1.
func (p *Pattern) nextLit(b []byte, i int) int {
	n, k := len(p.lit), p.rareAt
	// The kernel looks for two of lit's bytes at once; the loop below goes on where it stops.
	for i+n <= len(b) {
		s, found := strscan.PairScan(b, i, &p.pair)
		if !found {
			i = s
			break
		}
		if s+n <= len(b) && p.litAt(b, s) {
			return s
		}
		i = s + 1
	}
	c := p.lit[k]
	lo, up := c, c
	if p.fold {
		lo, up = lower(c), upper(c)
	}
	for i+n <= len(b) {
		j := indexEither(b[i+k:len(b)-n+k+1], lo, up)
		if j < 0 {
			return -1
		}
		s := i + j
		if p.litAt(b, s) {
			return s
		}
		i = s + 1
	}
	return -1
}

// candidates finds the places in b where a line may match: lit, or a \u00XX escape of one
// of its bytes (nextEscape). With the kernels, both in one pass (PairEither); else each
// search on its own, each one's next place kept until passed.
type candidates struct {
	p        *Pattern
	b        []byte
	lit, esc int // the next of each found by the searches on their own; -2: not looked for
}

func (p *Pattern) candidates(b []byte) *candidates {
	return &candidates{p: p, b: b, lit: -2, esc: -2}
}

// next returns the first place at or after i, or -1.
func (c *candidates) next(i int) int {
	p, b := c.p, c.b
	if strscan.Kernels() {
		for i+len(p.lit) <= len(b) {
			s, found := strscan.PairEither(b, i, &p.pair, &escapePair)
			if !found {
				i = s // the last bytes: below
				break
			}
			if s+len(p.lit) <= len(b) && p.litAt(b, s) || p.escapeAt(b, s) {
				return s
			}
			i = s + 1
		}
	}
	if c.lit == -2 || c.lit >= 0 && c.lit < i {
		c.lit = p.nextLit(b, i)
	}
	if c.esc == -2 || c.esc >= 0 && c.esc < i {
		c.esc = p.nextEscape(b, i)
	}
	return minPos(c.lit, c.esc)
}

// escapePair is what PairScan looks for to find \u escapes.
var escapePair = strscan.Pair{O1: 0, O2: 1, C1: [2]byte{'\\', '\\'}, C2: [2]byte{'u', 'u'}}

// nextEscape returns the index of the next \u00XX escape at or after i in b that stands for
// one of lit's bytes (spells), or -1: a line that holds one may match where lit is not in its
// raw bytes, and is decoded. (A backslash that is itself escaped makes a false candidate,
// which decoding sorts out.)
func (p *Pattern) nextEscape(b []byte, i int) int {
	if p.lit == nil {
		return -1
	}
	for i+6 <= len(b) {
		s, found := strscan.PairScan(b, i, &escapePair)
		if !found {
			j := bytes.Index(b[s:], []byte(`\u00`))
			if j < 0 {
				return -1
			}
			s += j
		}
		if p.escapeAt(b, s) {
			return s
		}
		i = s + 1
	}
	return -1
}

// escapeAt reports whether b[s:] starts with a \u00XX escape of one of lit's bytes.
func (p *Pattern) escapeAt(b []byte, s int) bool {
	if s+6 > len(b) || b[s] != '\\' || b[s+1] != 'u' || b[s+2] != '0' || b[s+3] != '0' {
		return false
	}
	c, ok := jsonl.HexByte(b[s+4], b[s+5])
	return ok && p.spells(c)
}

// spells reports whether c is one of lit's bytes (ignoring ASCII case with fold).
func (p *Pattern) spells(c byte) bool {
	if p.fold {
		c = lower(c)
	}
	return bytes.IndexByte(p.lit, c) >= 0
}

// litAt reports whether lit is at b[s:] (which holds len(lit) bytes).
func (p *Pattern) litAt(b []byte, s int) bool {
	if p.fold {
		return equalFoldASCII(b[s:s+len(p.lit)], p.lit)
	}
	return string(b[s:s+len(p.lit)]) == string(p.lit)
}

// rarePair is the pair of lit's bytes that PairScan looks for: its rarest byte (at rareAt)
// and the rarest of the others that is not the same byte.
func rarePair(lit []byte, rareAt int, fold bool) strscan.Pair {
	second := -1
	for i := range lit {
		if i != rareAt && lit[i] != lit[rareAt] && (second < 0 || byteRank(lit[i]) < byteRank(lit[second])) {
			second = i
		}
	}
	if second < 0 {
		second = (rareAt + 1) % len(lit) // a literal of one byte repeated
	}
	both := func(c byte) [2]byte {
		if fold {
			return [2]byte{lower(c), upper(c)}
		}
		return [2]byte{c, c}
	}
	return strscan.Pair{O1: rareAt, O2: second, C1: both(lit[rareAt]), C2: both(lit[second])}
}

func indexEither(b []byte, x, y byte) int {
	if x == y {
		return bytes.IndexByte(b, x)
	}
	i := bytes.IndexByte(b, x)
	lim := b
	if i >= 0 {
		lim = b[:i]
	}
	if j := bytes.IndexByte(lim, y); j >= 0 {
		return j
	}
	return i
}

func equalFoldASCII(b, lowerLit []byte) bool {
	for i, c := range b {
		if lower(c) != lowerLit[i] {
			return false
		}
	}
	return true
}

// Snippet is a piece of a message's text around a match, on one line.
type Snippet struct {
	Text    string
	Matches [][2]int // byte ranges of matches inside Text
}

const (
	snipBefore = 60
	snipAfter  = 140
)

// snippet cuts text around the match at [s,e) and lists the matches inside it.
func (p *Pattern) snippet(text string, s, e int) Snippet {
	from := s - snipBefore
	if from < 0 {
		from = 0
	}
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	to := e + snipAfter
	if to > len(text) {
		to = len(text)
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	return p.snippetOf(text[from:to], from > 0, to < len(text))
}

// oneLine maps each byte to itself, but those that break lines (\n, \r, \t) to a space.
var oneLine = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	t['\n'], t['\r'], t['\t'] = ' ', ' ', ' '
	return t
}()

// snippetOf makes a snippet of part, a piece of the text around a match; cutBefore and
// cutAfter say whether the text goes on before and after it.
func (p *Pattern) snippetOf(part string, cutBefore, cutAfter bool) Snippet {
	var ms [][2]int
	if !p.noHighlights {
		for _, m := range p.re.FindAllStringIndex(part, 20) {
			ms = append(ms, [2]int{m[0], m[1]})
		}
	}
	pre, post := "", ""
	if cutBefore {
		pre = "…"
	}
	if cutAfter {
		post = "…"
	}
	// One line: white space that breaks lines becomes a space (same byte length, so the match
	// ranges stay right). One allocation, which the snippet owns: part may point into a
	// mapped file or a reused buffer.
	out := make([]byte, len(pre)+len(part)+len(post))
	copy(out, pre)
	body := out[len(pre):][:len(part)]
	for i := 0; i < len(part); i++ { // a table, not a branch per byte (code has a \n or \t every few bytes)
		body[i] = oneLine[part[i]]
	}
	copy(out[len(pre)+len(part):], post)
	for i := range ms {
		ms[i][0] += len(pre)
		ms[i][1] += len(pre)
	}
	return Snippet{Text: unsafe.String(unsafe.SliceData(out), len(out)), Matches: ms}
}

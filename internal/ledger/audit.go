package ledger

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
)

// CarriedTitle opens the closing section Audit appends to a summary.
const CarriedTitle = "## Carried verbatim by ctxc"

const carriedIntro = "Facts of the conversation the summary above left out, copied exactly:"

// cutNote ends a summary body that Audit shortened to make room for the carried facts.
const cutNote = "[ctxc: the summary above was shortened to make room for the facts below]"

// Counts of an audit.
type Counts struct {
	Facts   int `json:"facts"`
	Present int `json:"present"` // in the summary as its summarizer wrote it (in the recognized form)
	Carried int `json:"carried"` // appended verbatim by the audit
	Dropped int `json:"dropped"` // left out: the ledger did not fit the target
}

// Report is the outcome of an audit, in total and per category.
type Report struct {
	Counts
	// Mentioned counts the facts found anywhere in the summary as its summarizer wrote it, in
	// any form (normalized containment, as Check): how much the summarizer kept by itself.
	Mentioned int `json:"mentioned"`
	// Tokens is the size of the audited summary (within the target).
	Tokens         int                   `json:"tokens"`
	MentionedByCat [NumCategories]int    `json:"-"`
	ByCat          [NumCategories]Counts `json:"-"`
	// PerCategory is ByCat keyed by category name, for JSON (categories without facts left out).
	PerCategory map[string]Counts `json:"categories,omitempty"`
}

func (r *Report) fill() {
	r.PerCategory = nil
	for c, n := range r.ByCat {
		if n.Facts > 0 {
			if r.PerCategory == nil {
				r.PerCategory = map[string]Counts{}
			}
			r.PerCategory[Category(c).String()] = n
		}
	}
}

// headingCategory maps a summary heading to the category whose facts its items hold.
func headingCategory(title string) (Category, bool) {
	t := norm(title)
	switch {
	case strings.Contains(t, "carried"):
		return 0, false
	case strings.Contains(t, "last user request"), strings.Contains(t, "latest user request"), strings.Contains(t, "last request"):
		return LastRequest, true
	case strings.Contains(t, "rule"), strings.Contains(t, "preference"):
		return Rule, true
	case strings.Contains(t, "modified"), strings.Contains(t, "changed"), strings.Contains(t, "edited"), strings.Contains(t, "written"):
		return Modified, true
	case strings.Contains(t, "files read"), strings.Contains(t, "read files"):
		return Read, true
	case strings.Contains(t, "url"):
		return Ref, true
	case strings.Contains(t, "unresolved error"):
		return Error, true
	case strings.Contains(t, "request"):
		return Request, true
	}
	return 0, false
}

var (
	headingRe = lazyRegexp(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	bulletRe  = lazyRegexp(`^(?:[-*+]|\d{1,3}[.)])\s+`)
)

// parse reads the facts a summary holds in the recognized form: under a heading of the fact's
// category, one item per fact; a text fact quoted whole in double quotes, a path, URL or id
// first on its item (in backticks, or bare when it looks like one). Items in any other form
// are prose and hold no fact: what parse accepts is exactly what Audit counts as present, so a
// fact counted present is read back by the next compaction.
func parse(text string) []Fact {
	var out []Fact
	cat, in := Category(0), false
	var item []string
	done := func() {
		if in && len(item) > 0 {
			if f, ok := itemFact(cat, strings.Join(item, "\n")); ok {
				out = append(out, Fact{Cat: cat, Text: f})
			}
		}
		item = item[:0]
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		switch {
		case headingRe().MatchString(line):
			done()
			cat, in = headingCategory(headingRe().FindStringSubmatch(line)[1])
		case bulletRe().MatchString(line):
			done()
			item = append(item, line[len(bulletRe().FindString(line)):])
		case strings.TrimSpace(line) == "":
			// A blank line inside an item continues it when the next line is indented.
			if len(item) > 0 && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
				item = append(item, "")
			} else {
				done()
			}
		case len(item) > 0 && (line[0] == ' ' || line[0] == '\t' || line[0] == '>' && strings.HasPrefix(item[0], ">")):
			item = append(item, strings.TrimPrefix(line, "  "))
		default:
			done()
			item = append(item, line)
		}
	}
	done()
	return out
}

// itemFact reads the fact of one item under a heading of category c.
func itemFact(c Category, item string) (string, bool) {
	s := strings.TrimSpace(item)
	if s == "" {
		return "", false
	}
	if c.token() {
		var tok string
		quoted := false
		if strings.HasPrefix(s, "`") {
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				return "", false
			}
			tok, quoted = s[1:1+end], true
		} else {
			tok = s
			if i := strings.IndexAny(s, " \t\n"); i >= 0 {
				tok = s[:i]
			}
			tok = strings.TrimRight(tok, ":,;")
		}
		tok = strings.TrimSpace(tok)
		if tok == "" || !quoted && !tokenLike(c, tok) {
			return "", false
		}
		return tok, true
	}
	// A text fact: the whole item in double quotes, or a block quote.
	if inner, ok := unquote(s); ok {
		return inner, true
	}
	return "", false
}

func unquote(s string) (string, bool) {
	for _, q := range [][2]string{{`"`, `"`}, {"\u201c", "\u201d"}} {
		if len(s) >= len(q[0])+len(q[1])+1 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			inner := strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
			return inner, inner != ""
		}
	}
	if strings.HasPrefix(s, ">") {
		var b []string
		for l := range strings.SplitSeq(s, "\n") {
			l = strings.TrimSpace(l)
			if !strings.HasPrefix(l, ">") {
				return "", false
			}
			b = append(b, strings.TrimSpace(strings.TrimPrefix(l, ">")))
		}
		inner := strings.TrimSpace(strings.Join(b, "\n"))
		return inner, inner != ""
	}
	return "", false
}

func tokenLike(c Category, tok string) bool {
	switch c {
	case Modified, Read:
		return strings.ContainsAny(tok, "/.\\")
	case Ref:
		for _, re := range []func() *regexp.Regexp{urlRe, uuidRe, versionRe, ticketRe, shaRe} {
			if loc := re().FindStringIndex(tok); loc != nil && loc[0] == 0 && loc[1] == len(tok) {
				return true
			}
		}
	}
	return false
}

// presentSet is the normalized facts a text holds in the recognized form.
func presentSet(text string) map[Fact]bool {
	m := map[Fact]bool{}
	for _, f := range parse(text) {
		m[Fact{Cat: f.Cat, Text: norm(f.Text)}] = true
	}
	return m
}

// held tells, for each prepared fact, whether a summary holds it in the recognized form: an
// item under a heading of the fact's category (what the next compaction reads back) that holds
// the fact as people write it (Match): a modified file listed by its path in the project or by
// its unambiguous name counts, a path in prose does not.
func (p *prepared) held(text string) []bool {
	// An item that is a fact itself holds it (most do: the carried section's); the others are
	// matched against the category's items that are not facts themselves.
	var items [NumCategories]strings.Builder
	same := map[Fact]bool{}
	for _, f := range parse(text) {
		k := Fact{Cat: f.Cat, Text: norm(f.Text)}
		same[k] = true
		if !p.isKey[k] {
			items[f.Cat].WriteString(f.Text)
			items[f.Cat].WriteString("\n")
		}
	}
	out := make([]bool, len(p.facts))
	var byCat [NumCategories][]int
	for i, f := range p.facts {
		if out[i] = same[p.keys[i]]; !out[i] {
			byCat[f.Cat] = append(byCat[f.Cat], i)
		}
	}
	for c, idx := range byCat {
		if items[c].Len() == 0 || len(idx) == 0 {
			continue
		}
		facts := make([]Fact, len(idx))
		for j, i := range idx {
			facts[j] = p.facts[i]
		}
		for j, h := range p.match.match(items[c].String(), facts) {
			out[idx[j]] = h != Missing
		}
	}
	return out
}

// renderFact is a fact as one item of the carried section.
func renderFact(f Fact) string {
	if f.Cat.token() {
		if strings.ContainsAny(f.Text, "`\n") {
			return "- " + f.Text + "\n"
		}
		return "- `" + f.Text + "`\n"
	}
	lines := strings.Split(f.Text, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = "  " + lines[i]
	}
	return "- \"" + strings.Join(lines, "\n") + "\"\n"
}

// Audit checks a summary against the ledger and returns the summary to write: the
// summarizer's text, then (when facts are missing from it) the carried section with each
// missing fact verbatim. The result stays within target tokens: the summary's own text is
// shortened first (at line boundaries, from its end), and when the ledger alone does not fit,
// facts are kept by priority (rules, last request, modified files, URLs and ids, the rest) and
// the section says what was left out.
func Audit(summary string, l *Ledger, target int) (string, Report) {
	var rep Report
	facts := l.Facts()
	for _, f := range facts {
		rep.ByCat[f.Cat].Facts++
	}
	rep.Facts = len(facts)
	summary = strings.TrimRight(summary, " \t\r\n")
	mentioned := Check(summary, l)
	for c := range mentioned {
		rep.MentionedByCat[c] = mentioned[c][1]
		rep.Mentioned += mentioned[c][1]
	}
	limit := target * 4 // characters: tokens are ceil(chars/4)
	if target <= 0 {
		limit = int(^uint(0) >> 2)
	}
	if len(facts) == 0 {
		rep.fill()
		if target > 0 && estimate.Chars(summary) > limit {
			summary = cutLines(strings.Split(summary, "\n"), limit, "")
		}
		rep.Tokens = estimate.Tokens(summary)
		return summary, rep
	}
	lines := strings.Split(summary, "\n")
	if summary == "" {
		lines = nil
	}
	pf := prepare(facts)
	// The fewest facts that must be left out: with no summary text at all.
	_, _, floor := assemble(nil, 0, pf, limit)
	// The most summary text that leaves out no more than that (found by bisection on lines).
	lo, hi := 0, len(lines)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if text, _, dropped := assemble(lines, mid, pf, limit); text != "" && dropped <= floor {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	text, r, _ := assemble(lines, lo, pf, limit)
	if text == "" && len(lines) > 0 || estimate.Chars(text) > limit {
		// Not even the section's fixed parts fit: the summary's own text, cut, and no facts.
		text = cutLines(lines, limit, "")
		r = Report{}
		pres := pf.held(text)
		for i, f := range facts {
			if pres[i] {
				r.Present++
				r.ByCat[f.Cat].Present++
			} else {
				r.Dropped++
				r.ByCat[f.Cat].Dropped++
			}
		}
	}
	r.Facts = rep.Facts
	r.Mentioned, r.MentionedByCat = rep.Mentioned, rep.MentionedByCat
	r.ByCat = mergeFacts(r.ByCat, rep.ByCat)
	r.fill()
	r.Tokens = estimate.Tokens(text)
	return text, r
}

func mergeFacts(got, facts [NumCategories]Counts) [NumCategories]Counts {
	for c := range got {
		got[c].Facts = facts[c].Facts
	}
	return got
}

// prepared is the ledger's facts with their normalized keys and rendered sizes, and how they
// are matched.
type prepared struct {
	facts []Fact
	keys  []Fact
	isKey map[Fact]bool
	sizes []int
	match *matcher
}

func prepare(facts []Fact) *prepared {
	p := &prepared{facts: facts, keys: make([]Fact, len(facts)), isKey: make(map[Fact]bool, len(facts)),
		sizes: make([]int, len(facts)), match: factsMatcher(facts, MatchOptions{})}
	for i, f := range facts {
		p.keys[i] = Fact{Cat: f.Cat, Text: norm(f.Text)}
		p.isKey[p.keys[i]] = true
		p.sizes[i] = estimate.Chars(renderFact(f))
	}
	return p
}

// carriedHead opens the carried section, before the facts.
const carriedHead = CarriedTitle + "\n" + carriedIntro + "\n"

// bodyBreak separates the summary's own text from the carried section: a blank line.
const bodyBreak = "\n\n"

// assemble builds the summary from its first k lines and the facts missing from them, within
// limit characters. It returns "" when even the fixed parts do not fit.
func assemble(lines []string, k int, facts *prepared, limit int) (string, Report, int) {
	body := keptBody(lines, k)
	c, rep := facts.missingFrom(body)
	if len(c.missing) == 0 {
		if estimate.Chars(body) > limit {
			return "", rep, 0
		}
		return body, rep, 0
	}
	c.used = estimate.Chars(body) + estimate.Chars(carriedHead)
	if body != "" {
		c.used += estimate.Chars(bodyBreak)
	}
	c.fit(limit)
	c.makeRoomForNote(limit)
	out, dropped := c.write(body, &rep)
	if estimate.Chars(out) > limit {
		return "", rep, dropped
	}
	return out, rep, dropped
}

// keptBody is the summary's own text cut to its first k lines. A cut text does not end on blank
// lines or on a heading that lost its items, and says that it was shortened.
func keptBody(lines []string, k int) string {
	if k <= 0 {
		return ""
	}
	kept := lines[:k]
	if k == len(lines) {
		return strings.Join(kept, "\n")
	}
	for len(kept) > 0 && (strings.TrimSpace(kept[len(kept)-1]) == "" || headingRe().MatchString(kept[len(kept)-1])) {
		kept = kept[:len(kept)-1]
	}
	if len(kept) == 0 {
		return ""
	}
	return strings.TrimRight(strings.Join(kept, "\n"), " \t\r\n") + "\n" + cutNote
}

// carried is the choice of the facts the carried section holds, among those a summary misses.
type carried struct {
	missing []Fact             // in priority order
	sizes   []int              // rendered size of each missing fact
	keep    []bool             // whether each missing fact is carried
	keptN   [NumCategories]int // facts kept, per category
	leftN   [NumCategories]int // facts left out, per category
	used    int                // characters of the whole summary so far
}

// missingFrom counts, in a report, the facts body holds in the recognized form, and returns the
// others as candidates for the carried section.
func (p *prepared) missingFrom(body string) (*carried, Report) {
	var rep Report
	c := &carried{}
	present := p.held(body)
	for i, f := range p.facts {
		if present[i] {
			rep.ByCat[f.Cat].Present++
			rep.Present++
		} else {
			c.missing = append(c.missing, f)
			c.sizes = append(c.sizes, p.sizes[i])
		}
	}
	c.keep = make([]bool, len(c.missing))
	return c, rep
}

// fit keeps the missing facts, in priority order, that fit within limit; the first fact kept in
// a category pays for the category's heading. A fact that does not fit is left out, and smaller
// ones after it may still fit.
func (c *carried) fit(limit int) {
	for i, f := range c.missing {
		n := c.sizes[i]
		if c.keptN[f.Cat] == 0 {
			n += headingSize(f.Cat)
		}
		if c.used+n <= limit {
			c.keep[i] = true
			c.keptN[f.Cat]++
			c.used += n
		} else {
			c.leftN[f.Cat]++
		}
	}
}

// makeRoomForNote gives up kept facts, lowest priority first, until the note saying what was
// left out fits within limit too: a reader must know the section is incomplete.
func (c *carried) makeRoomForNote(limit int) {
	for i := len(c.missing) - 1; i >= 0; i-- {
		if !c.keep[i] {
			continue
		}
		if note := leftOutNote(c.leftN); note == "" || c.used+estimate.Chars(note) <= limit {
			return
		}
		cat := c.missing[i].Cat
		c.keep[i] = false
		c.keptN[cat]--
		c.leftN[cat]++
		c.used -= c.sizes[i]
		if c.keptN[cat] == 0 {
			c.used -= headingSize(cat)
		}
	}
}

// write is the summary: body, then the carried section with the kept facts under their
// categories' headings and the note on what was left out. It counts the carried and dropped
// facts in rep and returns the text and the number dropped.
func (c *carried) write(body string, rep *Report) (string, int) {
	var b strings.Builder
	b.WriteString(body)
	if body != "" {
		b.WriteString(bodyBreak)
	}
	b.WriteString(carriedHead)
	dropped := 0
	cur := Category(NumCategories)
	for i, f := range c.missing {
		if !c.keep[i] {
			dropped++
			rep.ByCat[f.Cat].Dropped++
			continue
		}
		if f.Cat != cur {
			cur = f.Cat
			b.WriteString(categoryHeading(cur))
		}
		b.WriteString(renderFact(f))
		rep.ByCat[f.Cat].Carried++
		rep.Carried++
	}
	b.WriteString(leftOutNote(c.leftN))
	rep.Dropped = dropped
	return strings.TrimRight(b.String(), "\n"), dropped
}

// leftOutNote says how many facts of each category were left out ("" when none was).
func leftOutNote(left [NumCategories]int) string {
	var parts []string
	for c, n := range left {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(Category(c).Title())))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Left out for space: " + strings.Join(parts, ", ") + ".\n"
}

// categoryHeading heads a category's facts in the carried section.
func categoryHeading(c Category) string { return "### " + c.Title() + "\n" }

// headingSize is the size of a category's heading in the carried section.
func headingSize(c Category) int { return estimate.Chars(categoryHeading(c)) }

// cutLines keeps the leading lines of a text within limit characters, ending with note.
func cutLines(lines []string, limit int, note string) string {
	var b strings.Builder
	n := estimate.Chars(note) + 1
	for _, l := range lines {
		c := estimate.Chars(l) + 1
		if n+c > limit {
			break
		}
		b.WriteString(l + "\n")
		n += c
	}
	b.WriteString(note)
	return strings.TrimRight(b.String(), "\n")
}

// Check counts, per category, the ledger's facts found anywhere in a text (the whole reloaded
// context, say), whatever the form, matched as Found matches.
func Check(text string, l *Ledger) [NumCategories][2]int {
	var out [NumCategories][2]int
	for c, found := range Found(text, l) {
		for _, ok := range found {
			out[c][0]++
			if ok {
				out[c][1]++
			}
		}
	}
	return out
}

// Found tells, for each fact of the ledger (in the order of ByCat), whether a text holds it,
// matched as people write facts (Match with the default options).
func Found(text string, l *Ledger) [NumCategories][]bool {
	var out [NumCategories][]bool
	for c, hs := range Match(text, l, MatchOptions{}) {
		out[c] = make([]bool, len(hs))
		for i, h := range hs {
			out[c][i] = h != Missing
		}
	}
	return out
}

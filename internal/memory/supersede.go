package memory

import (
	"slices"
	"strings"
	"sync"
	"unicode"
)

// A statement supersedes an earlier one about the same thing when it reverses it: one forbids
// what the other asks (a rule and a constraint), or the newer one says it replaces something
// ("instead", "no longer", "from now on"). "About the same thing" is measured on content words:
// at least half of the shorter statement's words, and at least minShared of them (one is enough
// for a replacement, which often names only the old tool: "use pnpm instead of npm").

// Thresholds of supersession.
const (
	minShared     = 2   // content words two statements share to be about the same thing
	minSharedPart = 0.5 // and the part of the shorter one's words they are
)

// reversal marks a statement that replaces an earlier one.
var reversal = lazyRegexp(`(?i)\b(instead|no longer|anymore|any more|from now on|rather than|changed my mind|scratch that|not .* but)\b`)

// stopwords are left out of content words, with the cue words of rules and decisions; the set
// is built on first use.
var stopwords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into onto as is are was were
		be been being it its this that these those there here we i you he she they me my our your us them his her their
		do does did done don doesn didn not no nor so too very can could will would shall should must may might
		always never please make sure use using used prefer avoid only keep stop remember need needs want wants
		instead rather than longer anymore more now from just also all any each every some what which who whom
		when where why how let lets ll ve re s t d m going go decided decide decision because since due given
		chose chosen choose opted settled stick switch switched run runs running ran`) {
		set[w] = true
	}
	return set
})

// terms are the content words of a statement, stemmed, without repeats.
func terms(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' && r != '/'
	}) {
		w = strings.Trim(w, "-_./")
		if len(w) < 3 || stopwords()[w] {
			continue
		}
		w = stem(w)
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// stem cuts a plural or verb ending off a word ("tests" → "test", "running" → "run").
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) && !strings.ContainsAny(w, "./") {
			w = w[:len(w)-len(suf)]
			if n := len(w); n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiou", rune(w[n-1])) {
				w = w[:n-1]
			}
			return w
		}
	}
	return w
}

// supersedes reports whether statement b, said after a, reverses it.
func supersedes(b, a *Entry, bTerms, aTerms []string) bool {
	shared := 0
	for _, t := range aTerms {
		if slices.Contains(bTerms, t) {
			shared++
		}
	}
	if shared == 0 {
		return false
	}
	shorter := min(len(aTerms), len(bTerms))
	about := float64(shared) >= minSharedPart*float64(shorter)
	flip := (a.Kind == Constraint) != (b.Kind == Constraint) && a.Kind != Decision && b.Kind != Decision
	replaces := reversal().MatchString(b.Text)
	switch {
	case replaces && about:
		return true
	case flip && about && shared >= minShared:
		return true
	case replaces && b.Kind == Decision && shared >= minShared:
		return true
	}
	return false
}

// markSuperseded marks every statement that a later one reverses with the newest such one.
// Candidates are found through the words they share, so the cost follows the overlaps, not the
// square of the entries.
func markSuperseded(es []Entry) {
	var idx []int
	for i := range es {
		es[i].Superseded = nil
		if es[i].Kind.statement() {
			idx = append(idx, i)
		}
	}
	termsOf := make(map[int][]string, len(idx))
	byTerm := map[string][]int{}
	for _, i := range idx {
		ts := terms(es[i].Text)
		termsOf[i] = ts
		for _, t := range ts {
			byTerm[t] = append(byTerm[t], i)
		}
	}
	for _, a := range idx {
		var best *Entry
		seen := map[int]bool{}
		for _, t := range termsOf[a] {
			for _, b := range byTerm[t] {
				if b == a || seen[b] {
					continue
				}
				seen[b] = true
				eb, ea := &es[b], &es[a]
				if !eb.Last.After(ea.Last) || eb.key == ea.key {
					continue
				}
				if supersedes(eb, ea, termsOf[b], termsOf[a]) && (best == nil || eb.Last.After(best.Last)) {
					best = eb
				}
			}
		}
		if best != nil {
			sup := &Superseder{Text: best.Text}
			if len(best.Sources) > 0 {
				sup.Source = best.Sources[0]
			}
			es[a].Superseded = sup
		}
	}
}

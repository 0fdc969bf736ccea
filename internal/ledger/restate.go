package ledger

import (
	"strings"
	"unicode"
)

// A rule or request is restated when a sentence of the text keeps the key terms of each of its
// sentences that matter (for a rule, the sentences that state it), with the same polarity (both
// negated or neither: "push to main" does not keep "never push to main") and every number.
// Decided by code: words, a short stop list and a crude stemmer, no model.

// restateShare is the share of a sentence's key terms a restatement must keep.
const restateShare = 0.6

// requestShare is the share of a request's sentences that must be kept (verbatim or restated)
// for the request to be: a summary says what was asked, not every sentence of it.
const requestShare = 2.0 / 3

// minKeyTerms is the fewest key terms a sentence needs to count: "Thanks." says nothing to keep.
const minKeyTerms = 2

// termSentence is a sentence of a text: its key terms, whether it is negated, its numbers.
type termSentence struct {
	terms   map[string]bool
	negated bool
	numbers map[string]bool
}

func (idx *textIndex) indexSentences(text string) {
	idx.byTerm = map[string][]int{}
	for _, s := range sentences(text) {
		ts := sentenceTerms(s)
		if len(ts.terms) == 0 {
			continue
		}
		n := len(idx.sentences)
		idx.sentences = append(idx.sentences, ts)
		for t := range ts.terms {
			idx.byTerm[t] = append(idx.byTerm[t], n)
		}
	}
}

// restated is how the text holds a rule or request that it does not hold verbatim: Verbatim
// when each sentence that matters is there word for word, Restated when some are in other words.
func restated(c Category, f string, idx *textIndex) How {
	key := keySentences(c, f)
	if len(key) == 0 {
		return Missing
	}
	kept, reworded := 0, false
	for _, s := range key {
		switch {
		case strings.Contains(idx.norm, norm(s)):
			kept++
		case idx.restates(sentenceTerms(s)):
			kept++
			reworded = true
		}
	}
	need := len(key)
	if c != Rule {
		need = max(1, int(float64(len(key))*requestShare+0.999))
	}
	switch {
	case kept < need:
		return Missing
	case reworded:
		return Restated
	}
	return Verbatim
}

// keySentences are the sentences of a fact that must be kept: for a rule those with a rule
// cue (all of them when none has one), for a request all; sentences with too few key terms
// aside. An elided fact's note is not a sentence.
func keySentences(c Category, f string) []string {
	var all, cued []string
	for part := range strings.SplitSeq(f, " […] ") {
		for _, s := range sentences(part) {
			if len(sentenceTerms(s).terms) < minKeyTerms {
				continue
			}
			all = append(all, s)
			if ruleCues().MatchString(s) {
				cued = append(cued, s)
			}
		}
	}
	if c == Rule && len(cued) > 0 {
		return cued
	}
	return all
}

// restates reports whether a sentence of the text restates s.
func (idx *textIndex) restates(s termSentence) bool {
	if len(s.terms) < minKeyTerms {
		return false
	}
	need := int(float64(len(s.terms))*restateShare + 0.999)
	shared := map[int]int{}
	for t := range s.terms {
		for _, i := range idx.byTerm[t] {
			shared[i]++
		}
	}
	for i, n := range shared {
		if n < need {
			continue
		}
		if o := idx.sentences[i]; o.negated == s.negated && hasAll(o.numbers, s.numbers) {
			return true
		}
	}
	return false
}

func hasAll(have, want map[string]bool) bool {
	for k := range want {
		if !have[k] {
			return false
		}
	}
	return true
}

// negations make a sentence say the opposite ("don't" is read as "don" and "t"); "instead"
// counts too: "pnpm, not npm" and "pnpm instead of npm" say the same.
var negations = map[string]bool{"never": true, "not": true, "no": true, "without": true, "avoid": true,
	"stop": true, "cannot": true, "nor": true, "neither": true, "forbidden": true, "forbid": true,
	"mustn": true, "shouldn": true, "don": true, "doesn": true, "didn": true, "won": true, "isn": true,
	"aren": true, "wasn": true, "instead": true, "nothing": true, "none": true, "refuse": true, "prohibited": true}

// stopWords carry no content of their own.
var stopWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`the a an and or but if then else of to in on at by for with from into onto
		as is are was were be been being do does did done this that these those it its it's i me my we us our you
		your he she they them their there here what which who whom when where why how all any each both some such
		so than too very just also only own same can could would should will shall may might must please pls
		have has had having get got make made let lets use using used always every ever sure again
		now then once before after while about over under up down out off per via via etc yes ok okay`) {
		stopWords[w] = true
	}
}

// sentenceTerms reads a sentence's key terms (stemmed content words and numbers), negation and
// numbers.
func sentenceTerms(s string) termSentence {
	ts := termSentence{terms: map[string]bool{}, numbers: map[string]bool{}}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '/' || r == '-')
	})
	for _, w := range words {
		w = strings.Trim(w, ".-/")
		if w == "" {
			continue
		}
		if negations[w] || strings.HasSuffix(w, "n't") {
			ts.negated = true
			continue
		}
		if strings.ContainsAny(w, "0123456789") {
			ts.numbers[w] = true
			ts.terms[w] = true
			continue
		}
		if stopWords[w] || len(w) < 3 {
			continue
		}
		ts.terms[stem(w)] = true
		// A file is also spoken of by its name without the extension: "notes.txt", "the notes".
		if dot := strings.LastIndexByte(w, '.'); dot >= 3 && !strings.ContainsRune(w, '/') && isLetters(w[dot+1:]) {
			ts.terms[stem(w[:dot])] = true
		}
	}
	return ts
}

// stem cuts a common English ending, so that "pushing", "pushed" and "pushes" are one term.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 && !strings.HasSuffix(w, "ss") {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

package ledger

import (
	"slices"
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

// termSentence is a sentence: its key terms, whether it is negated, its numbers.
type termSentence struct {
	terms   map[string]bool
	negated bool
	numbers map[string]bool
}

// keySentence is a sentence of a fact that the text must keep, and whether it does.
type keySentence struct {
	fact int
	termSentence
	verbatim, kept bool
}

// matchRestated finds, for the rule and request facts of texts (not held verbatim), whether
// the text keeps each of their sentences that matter, word for word or restated: one pass over
// the text's sentences, each read for the key terms some fact's sentence has.
func matchRestated(text, n string, facts []Fact, texts []int, out []How) {
	var keys []*keySentence
	byTerm := map[string][]int{}
	for _, i := range texts {
		for _, s := range keySentences(facts[i].Cat, facts[i].Text) {
			k := &keySentence{fact: i, termSentence: sentenceTerms(s)}
			k.verbatim = strings.Contains(n, norm(s))
			k.kept = k.verbatim
			for t := range k.terms {
				byTerm[t] = append(byTerm[t], len(keys))
			}
			keys = append(keys, k)
		}
	}
	shared := make([]int, len(keys))
	var touched []int
	eachSentence(text, func(s string) {
		negated, terms := wantedTerms(s, byTerm)
		if len(terms) < minKeyTerms {
			return
		}
		touched = touched[:0]
		for _, t := range terms {
			for _, k := range byTerm[t] {
				if shared[k] == 0 {
					touched = append(touched, k)
				}
				shared[k]++
			}
		}
		for _, k := range touched {
			if ks := keys[k]; !ks.kept && ks.negated == negated && shared[k] >= needed(len(ks.terms)) && hasNumbers(terms, ks.numbers) {
				ks.kept = true
			}
			shared[k] = 0
		}
	})
	judge(facts, keys, out)
}

// judge says how each fact with key sentences is held: Verbatim when each sentence that matters
// is there word for word, Restated when enough are (some in other words), else Missing.
func judge(facts []Fact, keys []*keySentence, out []How) {
	type tally struct{ all, kept, reworded int }
	per := map[int]*tally{}
	var order []int
	for _, k := range keys {
		t := per[k.fact]
		if t == nil {
			t = &tally{}
			per[k.fact] = t
			order = append(order, k.fact)
		}
		t.all++
		if k.kept {
			t.kept++
		}
	}
	for _, k := range keys {
		if k.kept && !k.verbatim {
			per[k.fact].reworded++
		}
	}
	for _, i := range order {
		t := per[i]
		need := t.all
		if facts[i].Cat != Rule {
			need = max(1, int(float64(t.all)*requestShare+0.999))
		}
		switch {
		case t.kept < need:
		case t.reworded > 0:
			out[i] = Restated
		default:
			out[i] = Verbatim
		}
	}
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

// needed is how many of n key terms a restatement keeps.
func needed(n int) int { return int(float64(n)*restateShare + 0.999) }

// hasNumbers reports whether terms hold every number.
func hasNumbers(terms []string, numbers map[string]bool) bool {
	for num := range numbers {
		if !slices.Contains(terms, num) {
			return false
		}
	}
	return true
}

// eachSentence calls fn with each sentence of a text (split as sentences splits: at ., ! or ?
// before a space, and at line breaks), without building the list.
func eachSentence(text string, fn func(string)) {
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			fn(s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			emit(i)
		case (c == '.' || c == '!' || c == '?') && i+1 < len(text) && strings.IndexByte(" \t\r\n", text[i+1]) >= 0:
			emit(i + 1)
		}
	}
	emit(len(text))
}

// wantedTerms reads a sentence as sentenceTerms does, keeping only the terms in want (the
// terms some fact's sentence has), each once, and whether the sentence is negated.
func wantedTerms(s string, want map[string][]int) (negated bool, terms []string) {
	add := func(t string) {
		if _, ok := want[t]; ok && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	eachTerm(s, func(w string, neg bool) {
		if neg {
			negated = true
			return
		}
		add(w)
	})
	return negated, terms
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
	eachTerm(s, func(w string, neg bool) {
		switch {
		case neg:
			ts.negated = true
		case strings.ContainsAny(w, "0123456789"):
			ts.numbers[w] = true
			ts.terms[w] = true
		default:
			ts.terms[w] = true
		}
	})
	return ts
}

// eachTerm calls fn with each key term of a sentence (a stemmed content word, or a word with a
// digit as it is), or with neg set for a negation.
func eachTerm(s string, fn func(term string, neg bool)) {
	lower := strings.ToLower(s)
	start := -1
	word := func(w string) {
		w = strings.Trim(w, ".-/")
		switch {
		case w == "":
		case negations[w] || strings.HasSuffix(w, "n't"):
			fn("", true)
		case strings.ContainsAny(w, "0123456789"):
			fn(w, false)
		case stopWords[w] || len(w) < 3:
		default:
			fn(stem(w), false)
			// A file is also spoken of by its name without the extension: "notes.txt", "the notes".
			if dot := strings.LastIndexByte(w, '.'); dot >= 3 && !strings.ContainsRune(w, '/') && isLetters(w[dot+1:]) {
				fn(stem(w[:dot]), false)
			}
		}
	}
	for i, r := range lower {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '/' || r == '-'
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			word(lower[start:i])
			start = -1
		}
	}
	if start >= 0 {
		word(lower[start:])
	}
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

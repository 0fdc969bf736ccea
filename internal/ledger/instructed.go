package ledger

import (
	"strings"

	"github.com/ctxc/ctxc/internal/transcript"
)

// Instructed facts: what the user's instructions for a compaction ask to keep that code can
// recognize. The rule, kept simple so that a user can predict it:
//
//   - a term is a span in backquotes (`go test ./...`), a span in double quotes (straight or
//     typographic), or a word that looks like a file path or URL (it holds a "/", or it is a
//     name with an extension such as main.go);
//   - a term is a fact when it occurs, ignoring case, in the text of an item of the middle:
//     what the instructions name but the conversation never said is not invented.
//
// Instructed facts join the URLs, ids and versions (Ref), after the category's bound, so that
// the audit carries them verbatim when the summary lacks them.

// maxInstructedTerms bounds the terms read from one set of instructions.
const maxInstructedTerms = 100

// minTermChars is the shortest term kept: a shorter one ("a", "ok") occurs everywhere.
const minTermChars = 3

// InstructedTerms are the terms of instructions, in order, without repeats.
func InstructedTerms(instructions string) []string {
	var terms list
	rest := instructions
	for _, q := range [][2]string{{"`", "`"}, {`"`, `"`}, {"\u201c", "\u201d"}} {
		var spans []string
		spans, rest = quotedSpans(rest, q[0], q[1])
		for _, s := range spans {
			terms.addToken(s, 0)
		}
	}
	for _, w := range strings.Fields(rest) {
		if w = strings.Trim(w, ".,;:!?()[]{}'\u2018\u2019"); pathLike(w) {
			terms.addToken(w, 0)
		}
	}
	items, _, _ := terms.all()
	var out []string
	for _, t := range items {
		if len([]rune(t)) >= minTermChars && len(out) < maxInstructedTerms {
			out = append(out, t)
		}
	}
	return out
}

// quotedSpans returns the spans of s between open and close, and s with them blanked out.
func quotedSpans(s, open, close string) (spans []string, rest string) {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			break
		}
		spans = append(spans, strings.TrimSpace(s[i+len(open):i+len(open)+j]))
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+len(open)+j+len(close):]
	}
	b.WriteString(s)
	return spans, b.String()
}

// pathLike reports a word that names a file or a URL: it holds a slash, or it is a name, a dot
// and an extension of letters and digits that holds a letter (main.go, notes.md; not 1.5).
func pathLike(w string) bool {
	if strings.Contains(w, "/") {
		return len(w) > 1
	}
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || dot == len(w)-1 || len(w)-dot-1 > 5 {
		return false
	}
	letter := false
	for _, c := range []byte(w[dot+1:]) {
		if !isAlnum(c) {
			return false
		}
		letter = letter || !(c >= '0' && c <= '9')
	}
	return letter
}

// instructed adds to l the terms that occur in the items, as the conversation spells them,
// that l does not hold yet.
func (l *Ledger) instructed(terms []string, items []transcript.Item) {
	if len(terms) == 0 {
		return
	}
	held := map[string]bool{}
	for _, f := range l.Facts() {
		held[norm(f.Text)] = true
	}
	lower := make([]string, len(terms))
	for i, t := range terms {
		lower[i] = strings.ToLower(t)
	}
	found := make([]int, len(terms)) // the source line of the first item holding the term, +1
	spelled := make([]string, len(terms))
	for i := range items {
		orig := items[i].Text + "\n" + items[i].Tail
		text := strings.ToLower(orig)
		for k, t := range lower {
			if found[k] == 0 {
				found[k], spelled[k] = firstSeen(orig, text, t, terms[k], items[i].Line)
			}
		}
	}
	for k := range terms {
		if found[k] > 0 && !held[norm(spelled[k])] {
			held[norm(spelled[k])] = true
			l.ByCat[Ref] = append(l.ByCat[Ref], spelled[k])
			l.Lines[Ref] = append(l.Lines[Ref], found[k]-1)
		}
	}
}

// firstSeen looks for the lower-cased term in text, the lower-cased orig: it returns line+1 and
// the term as orig spells it (the instructions' spelling when lower-casing changed the length),
// or 0.
func firstSeen(orig, text, lowerTerm, term string, line int) (int, string) {
	i := strings.Index(text, lowerTerm)
	if i < 0 {
		return 0, ""
	}
	if len(text) == len(orig) {
		term = orig[i : i+len(lowerTerm)]
	}
	return line + 1, term
}

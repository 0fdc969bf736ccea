package ledger

import "strings"

// noteIntro replaces the carried section's intro in a note: a note has no summary above it.
// It is not longer than carriedIntro, so the note stays within the target Audit kept to.
const noteIntro = "Facts of the conversation before the compaction, copied exactly:"

// Note renders the ledger's facts alone, as a carried section within target tokens (by
// priority when they do not all fit): what a hook hands an agent when it cannot see the
// summary. Audit reads such a section back when it is part of a later summary's input.
func Note(l *Ledger, target int) (string, Report) {
	text, rep := Audit("", l, target)
	return strings.Replace(text, carriedIntro, noteIntro, 1), rep
}

// Without is the ledger of the facts a text does not hold (compared as Check compares), with
// their lines: what a summary lost.
func (l *Ledger) Without(text string) *Ledger {
	out := &Ledger{}
	found := Found(text, l)
	for c, facts := range l.ByCat {
		for i, f := range facts {
			if !found[c][i] {
				out.ByCat[c] = append(out.ByCat[c], f)
				out.Lines[c] = append(out.Lines[c], l.Line(Category(c), i))
			}
		}
	}
	return out
}

package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Emergency compaction (the last tier): when the head and the tail alone leave no room under
// the threshold (one tool output can fill a window), the tail shrinks to what fits, never
// separating a call from its results, and what still does not fit is cut inside the kept
// messages: a tool result (or, where the format allows it, a tool call's arguments) longer than
// a limit keeps its beginning and its end around a note that names the file line of the whole
// text. The history is untouched: the originals stay in the file; only the reloaded context is
// smaller.

// Sizes of what a cut keeps: the beginning and the end of the text.
const (
	CutHeadChars = 1200
	CutTailChars = 600
)

// ShrinkTail moves the tail's start later, to the earliest pair-safe cut whose tail holds at
// most budget tokens once its large blocks are cut (CutTokens: the tail keeps the work in
// progress, shortened, rather than sending it to the summary); when no tail fits, the tail is
// the shortest one that keeps calls with their results. A summary never enters the tail.
func ShrinkTail(ms []transcript.Message, z Zones, budget int, resultsOnly bool) Zones {
	n := len(ms)
	tok := make([]int, n+1) // tok[i] = tokens of ms[i:], large blocks cut
	for i := n - 1; i >= 0; i-- {
		tok[i] = tok[i+1] + CutTokens(&ms[i], resultsOnly)
	}
	best := -1
	for i := max(z.TailStart, z.HeadEnd); i < n; i++ {
		if ms[i].Summary || !pairSafeCut(ms, i) {
			continue
		}
		if tok[i] <= budget {
			best = i
			break
		}
	}
	if best < 0 {
		// Nothing fits: the shortest pair-safe tail.
		for i := n - 1; i >= max(z.TailStart, z.HeadEnd); i-- {
			if !ms[i].Summary && pairSafeCut(ms, i) {
				best = i
				break
			}
		}
	}
	if best > z.TailStart {
		z.TailStart = best
	}
	return z
}

// CutTokens is a message's estimate once every block PlanCuts may shorten is shortened.
func CutTokens(m *transcript.Message, resultsOnly bool) int {
	chars := 0
	for _, b := range m.Blocks {
		if cuttable(&b, resultsOnly) {
			chars += CutHeadChars + CutTailChars + estimate.Chars(cutNote(b.Chars, m.Line, ""))
			continue
		}
		chars += b.Chars
	}
	return estimate.FromChars(chars) + m.Images()*estimate.ImageTokens
}

func cuttable(b *transcript.Block, resultsOnly bool) bool {
	if b.Kind != transcript.BlockToolResult && (resultsOnly || b.Kind != transcript.BlockToolCall) {
		return false
	}
	return b.Chars > CutHeadChars+CutTailChars+400
}

// PlanCuts chooses blocks to shorten in the kept messages (indexes [0,headEnd) and
// [tailStart,len)) until they hold at most budget tokens: the largest first, each down to
// CutHeadChars + CutTailChars and a note. resultsOnly limits cuts to tool results (formats whose
// call records cannot be rewritten). It returns the cuts and the kept tokens after them.
func PlanCuts(ms []transcript.Message, headEnd, tailStart, budget int, resultsOnly bool) ([]transcript.Cut, int) {
	kept := 0
	type cand struct{ msg, block, chars int }
	var cands []cand
	for i := range ms {
		if i >= headEnd && i < tailStart {
			continue
		}
		kept += ms[i].Tokens()
		for k, b := range ms[i].Blocks {
			if cuttable(&b, resultsOnly) {
				cands = append(cands, cand{i, k, b.Chars})
			}
		}
	}
	// Largest first.
	for a := 1; a < len(cands); a++ {
		for b := a; b > 0 && cands[b].chars > cands[b-1].chars; b-- {
			cands[b], cands[b-1] = cands[b-1], cands[b]
		}
	}
	var cuts []transcript.Cut
	for _, c := range cands {
		if kept <= budget {
			break
		}
		m := &ms[c.msg]
		b := m.Blocks[c.block]
		after := CutHeadChars + CutTailChars + estimate.Chars(cutNote(b.Chars, m.Line, ""))
		before := m.Tokens()
		chars := m.Chars() - b.Chars + after
		kept += estimate.FromChars(chars) + m.Images()*estimate.ImageTokens - before
		kind := "tool_result"
		if b.Kind == transcript.BlockToolCall {
			kind = "tool_call"
		}
		cuts = append(cuts, transcript.Cut{Line: m.Line, Kind: kind, ID: b.ID, CharsBefore: b.Chars, CharsAfter: after, Msg: c.msg, Block: c.block})
	}
	return cuts, kept
}

func cutNote(chars, line int, path string) string {
	where := fmt.Sprintf("line %d", line)
	if path != "" {
		where = fmt.Sprintf("%s line %d", path, line)
	}
	return fmt.Sprintf("\n\n[ctxc: %d characters cut here by an emergency compaction; the whole text is in %s]\n\n", chars-CutHeadChars-CutTailChars, where)
}

// ApplyCuts shortens the planned blocks of ms (whose text must be whole: Materialize) and
// marks their messages Edited, so that writers render them anew instead of copying their
// records. path names the file in the notes.
func ApplyCuts(ms []transcript.Message, cuts []transcript.Cut, path string) {
	for i := range cuts {
		c := &cuts[i]
		m := &ms[c.Msg]
		blocks := append([]transcript.Block(nil), m.Blocks...)
		b := &blocks[c.Block]
		text := b.Text
		if b.Kind == transcript.BlockToolCall {
			text = b.Args
		}
		head, tail, n := runeEnds(text, CutHeadChars, CutTailChars)
		if n <= CutHeadChars+CutTailChars {
			continue
		}
		short := head + cutNote(n, m.Line, path) + tail
		if b.Kind == transcript.BlockToolCall {
			// Arguments must stay JSON: the shortened text becomes a string value.
			b.Args = string(jsonl.Quote(short))
			b.Args = `{"ctxc_cut":` + b.Args + `}`
			b.Chars = estimate.Chars(b.Name) + estimate.Chars(b.Args)
		} else {
			b.Text = short
			b.Chars = estimate.Chars(short)
		}
		b.Cut, b.Tail = false, ""
		c.CharsAfter = b.Chars
		m.Blocks = blocks
		m.Raw = nil
		m.Edited = true
	}
}

// runeEnds is text's first head and last tail code points and its count of them, each byte
// that is not UTF-8 read as U+FFFD, as a conversion to []rune reads it, without that
// conversion: four bytes a character of a 100 MB tool result, only to keep 1,800 of them.
func runeEnds(text string, head, tail int) (string, string, int) {
	n := utf8.RuneCountInString(text)
	if n <= head+tail {
		return "", "", n
	}
	var h, t strings.Builder
	i := 0
	for _, r := range text {
		if i < head {
			h.WriteRune(r)
		} else if i >= n-tail {
			t.WriteRune(r)
		}
		i++
	}
	return h.String(), t.String(), n
}

// CutSummary says what an emergency compaction cut, for stderr.
func CutSummary(cuts []transcript.Cut) string {
	var parts []string
	for _, c := range cuts {
		parts = append(parts, fmt.Sprintf("line %d %s %d→%d chars", c.Line, c.Kind, c.CharsBefore, c.CharsAfter))
	}
	return strings.Join(parts, ", ")
}

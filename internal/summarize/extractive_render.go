package summarize

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// How the extractive summarizer spends its budget: the last request and state first, then a line
// per section per round, a note for what was left out; and the text helpers its lines go through.

// Shares of the budget, in characters, and the room render keeps.
const (
	lastAskShare   = 3   // the last request takes at most a third of the budget,
	minLastAsk     = 200 // but may take this much whatever the budget, room permitting
	lastStateShare = 5   // the assistant's last words take at most a fifth of the budget
	noteReserve    = 80  // kept free for the closing note that counts the lines left out
	bufferSlack    = 64  // output capacity beyond the budget: a first guess, the budget counting code points
)

// The characters a summary spends beyond its lines' text, as render counts them: a block (a
// section's title, the closing note) brings a blank line before it and its own line break, and
// every line its line break.
const (
	blockBreaks = 2
	lineBreak   = 1
)

// leftOutPrefix opens the closing note; summaryLines drops that note when it reads an earlier
// summary back.
const leftOutPrefix = "(ctxc extractive summary"

// render fills the budget: the last user request (always), the last state, then one line per
// section per round in pickOrder until nothing else fits; a final note counts what was left out.
func (e *extractor) render(budget int) string {
	lastAsk := e.lastAskLines(budget)
	used := 0
	if lastAsk != nil {
		used = sectionCost(titleLastRequest, lastAsk)
	}
	lastState := e.lastStateLines(budget)
	if lastState != nil {
		if cost := sectionCost(titleLastState, lastState); used+cost+noteReserve <= budget {
			used += cost
		} else {
			lastState = nil
		}
	}
	cands, total := e.candidates()
	chosen, taken, used := pickWithinBudget(cands, used, budget)

	var b strings.Builder
	b.Grow(budget + bufferSlack)
	writeChosen(&b, chosen)
	writeSection(&b, titleLastState, lastState)
	writeLeftOutNote(&b, total-taken, used, budget)
	writeSection(&b, titleLastRequest, lastAsk)
	return strings.TrimRight(b.String(), "\n")
}

// lastAskLines is the last user request as its section's one line, whole as far as room and
// capLastAsk allow: the next agent must know what it was asked. It is nil when no user spoke.
func (e *extractor) lastAskLines(budget int) []string {
	if e.lastUser < 0 {
		return nil
	}
	it := e.items[e.lastUser]
	prefix := lineTag(it.Line)
	room := budget - sectionCost(titleLastRequest, []string{prefix})
	n := max(min(capLastAsk, max(budget/lastAskShare, minLastAsk), room), 0)
	return []string{prefix + capRunes(strings.TrimSpace(it.Text), n)}
}

// lastStateLines says where the work stood: the assistant's last words and the tool call it
// made after them. It is nil when the assistant neither spoke nor called a tool.
func (e *extractor) lastStateLines(budget int) []string {
	var lines []string
	if e.lastAsst >= 0 {
		it := e.items[e.lastAsst]
		lines = append(lines, lineTag(it.Line)+"assistant: "+oneLine(it.Text, min(capLastState, budget/lastStateShare)))
	}
	if e.lastCall >= 0 {
		it := e.items[e.lastCall]
		lines = append(lines, lineTag(it.Line)+"then called "+it.Name+": "+oneLine(callSummary(it), capLastCall))
	}
	return lines
}

// candidates lists each section's lines in the order the budget is offered them (see
// pickSequence), and how many there are in all. The last request is left out of User requests,
// having a section of its own; the lines of the latest earlier summary come last under Earlier
// summary, in their own order.
func (e *extractor) candidates() (cands [numSections][]entry, total int) {
	for s := range cands {
		list := e.buckets[s].entries()
		if section(s) == secRequests && e.lastUser >= 0 {
			list = withoutItem(list, e.lastUser)
		}
		cands[s] = pickSequence(section(s), list)
		total += len(cands[s])
	}
	earlier := e.earlierSummaryEntries()
	cands[secEarlier] = append(cands[secEarlier], earlier...)
	return cands, total + len(earlier)
}

// withoutItem drops the candidates that came from one item.
func withoutItem(list []entry, item int) []entry {
	kept := list[:0:0]
	for _, en := range list {
		if en.item != item {
			kept = append(kept, en)
		}
	}
	return kept
}

// earlierSummaryEntries makes candidates of the content lines of the latest earlier summary, so
// that what an earlier compaction kept can survive this one.
func (e *extractor) earlierSummaryEntries() []entry {
	if e.lastSummary < 0 {
		return nil
	}
	var out []entry
	for _, line := range summaryLines(e.items[e.lastSummary].Text) {
		e.seq++
		out = append(out, entry{order: e.seq, item: e.lastSummary, text: oneLine(line, capSentence)})
	}
	return out
}

// pickWithinBudget offers the candidates one per section per round, in pickOrder, so that every
// section gets a share and the more important ones are served first. A line that does not fit
// with room left for the closing note is passed over, and shorter ones after it may still fit;
// a section's title is paid for with its first line. It returns the chosen lines, how many they
// are, and the characters used in all.
func pickWithinBudget(cands [numSections][]entry, used, budget int) ([numSections][]entry, int, int) {
	var chosen [numSections][]entry
	var pos [numSections]int
	opened := map[string]bool{}
	taken := 0
	for progress := true; progress; {
		progress = false
		for _, s := range pickOrder {
			if pos[s] >= len(cands[s]) {
				continue
			}
			en := cands[s][pos[s]]
			pos[s]++
			progress = true
			title := sectionTitle[s]
			cost := estimate.Chars(bulletText(s, en)) + lineBreak
			if !opened[title] {
				cost += estimate.Chars(title) + blockBreaks
			}
			if used+cost+noteReserve > budget {
				continue
			}
			used += cost
			opened[title] = true
			chosen[s] = append(chosen[s], en)
			taken++
		}
	}
	return chosen, taken, used
}

// writeChosen writes the chosen lines section by section in output order, each section in
// chronological order; error lines of successful tool output join the Errors section.
func writeChosen(b *strings.Builder, chosen [numSections][]entry) {
	for s := section(0); s < numSections; s++ {
		if s == secErrorLines {
			continue // written with secErrors
		}
		list := chosen[s]
		if s == secErrors {
			list = append(append([]entry(nil), chosen[secErrors]...), chosen[secErrorLines]...)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
		lines := make([]string, len(list))
		for i, en := range list {
			lines[i] = bulletText(s, en)
		}
		writeSection(b, sectionTitle[s], lines)
	}
}

// writeSection writes a titled section, after a blank line when text precedes it; a section
// without lines is not written at all.
func writeSection(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(title)
	b.WriteByte('\n')
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// writeLeftOutNote tells the reader how many candidate lines did not fit, so that the summary
// reads as partial; the note is written only if it fits the budget too.
func writeLeftOutNote(b *strings.Builder, dropped, used, budget int) {
	if dropped <= 0 {
		return
	}
	note := leftOutPrefix + ": " + strconv.Itoa(dropped) + " more lines left out to fit the target)"
	if used+estimate.Chars(note)+blockBreaks > budget {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(note)
	b.WriteByte('\n')
}

// pickSequence orders a section's candidates by importance: newest first, except that the
// first user request (the task) leads its section and an earlier summary is read in order.
func pickSequence(s section, list []entry) []entry {
	out := make([]entry, 0, len(list))
	if s == secRequests && len(list) > 0 {
		out = append(out, list[0])
		list = list[1:]
	}
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, list[i])
	}
	return out
}

func bulletText(s section, en entry) string {
	switch s {
	case secRequests, secRules, secDecisions, secErrors, secErrorLines:
		return "- " + lineTag(en.line) + en.text
	}
	return "- " + en.text
}

func lineTag(line int) string {
	if line > 0 {
		return "[line " + strconv.Itoa(line) + "] "
	}
	return ""
}

func sectionCost(title string, lines []string) int {
	n := estimate.Chars(title) + blockBreaks
	for _, l := range lines {
		n += estimate.Chars(l) + lineBreak
	}
	return n
}

// summaryLines returns the content lines of an earlier summary (headings and "none" dropped).
func summaryLines(t string) []string {
	var out []string
	for rest := t; rest != ""; {
		line, more, _ := strings.Cut(rest, "\n")
		rest = more
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimLeft(line, "-*•"))
		if line == "" || strings.HasPrefix(line, "#") || strings.EqualFold(line, "none") ||
			strings.HasPrefix(line, leftOutPrefix) {
			continue
		}
		out = append(out, line)
		if len(out) >= 400 {
			break
		}
	}
	return out
}

func callSummary(it transcript.Item) string {
	args := strings.TrimSpace(it.Text)
	obj := strings.HasPrefix(args, "{")
	if agent.KindOf(it.Name) == agent.ShellTool {
		if c := commandFromArgs(args, obj); c != "" {
			return c
		}
	}
	if obj {
		for _, k := range agent.PathKeys() {
			if v := gjson.Get(args, k); v.Type == gjson.String && v.Str != "" {
				return v.Str
			}
		}
	}
	return clip(args, 300)
}

// sentenceAround returns the sentence of line that contains byte offset k.
func sentenceAround(line string, k int) string {
	start := k
	for start > 0 && k-start < 200 {
		c := line[start-1]
		if (c == '.' || c == '!' || c == '?') && start < len(line) && line[start] == ' ' {
			break
		}
		start--
	}
	end := k
	for end < len(line) && end-k < 250 {
		c := line[end]
		end++
		if (c == '.' || c == '!' || c == '?') && (end == len(line) || line[end] == ' ') {
			break
		}
	}
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	return line[start:end]
}

// oneLine collapses whitespace and caps s at n code points (with "…"). It reads only as much of
// s as it needs, so a huge message costs O(n).
func oneLine(s string, n int) string {
	var b strings.Builder
	count := 0
	space := false
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			space = count > 0
			continue
		}
		if count >= n {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			count++
			space = false
			if count >= n {
				b.WriteString("…")
				break
			}
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// capRunes keeps the first n code points of s (with "…" when cut), preserving line breaks.
func capRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i < len(s) && k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// clip limits s to about n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

package memory

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/llm"
)

// A model may merge statements that say the same thing and phrase them shorter; code decides
// what it may keep. Each line it writes must cite the statements it stands for, all of one kind;
// every content word and every path, flag or name in it must come from those statements; a
// constraint must stay a prohibition and a rule must not become one. A line that fails is
// dropped and its statements are kept as extracted, so the model can only remove repetition.

// The model's answer, in tokens: at most phraseOut, and at least minPhraseOut must fit its window
// after the request.
const (
	phraseOut    = 4096
	minPhraseOut = 256
	idTokens     = 8 // a "- " and a "[R12, R13]" per line
)

const phraseSystem = `You edit the memory file of a software project: notes of what its user said across sessions.
Each input note has an id in brackets, such as [R3]. Merge notes that say the same thing into one line, and
shorten a note when that keeps its meaning. Rules:
- Keep the notes' own words, paths, commands, flags and names exactly; add nothing that no cited note says.
- Never merge notes of different letters (R: rules, C: constraints, D: decisions).
- Write one line per note or merged note, "- TEXT [ids]", citing every note it stands for.
Output only those lines.`

// kindLetters name the kinds of statements in the model's ids.
var kindLetters = map[Kind]string{Rule: "R", Constraint: "C", Decision: "D"}

// phraseLine is one line of the model: a statement and the ids it merges; noteID is one id.
var (
	phraseLine = lazyRegexp(`^\s*[-*]\s+(.+?)\s*\[((?:[RCD]\d+)(?:\s*,\s*[RCD]\d+)*)\]\s*$`)
	noteID     = lazyRegexp(`[RCD]\d+`)
)

// PhraseReport says what the model's pass did.
type PhraseReport struct {
	Statements int // current statements sent
	Lines      int // lines the model wrote
	Accepted   int // lines kept
	Merged     int // statements now part of a merged line
	Rejected   []string
}

// Phrase asks the model to merge and phrase the current statements of es and keeps what code
// accepts. On any failure of the model the entries are returned as they were, with the error.
func Phrase(ctx context.Context, c llm.Client, es []Entry) ([]Entry, PhraseReport, error) {
	ids, prompt := phrasePrompt(es)
	rep := PhraseReport{Statements: len(ids)}
	if len(ids) < 2 {
		return es, rep, nil
	}
	window, err := c.Window(ctx)
	if err != nil {
		return es, rep, err
	}
	in := estimate.Tokens(phraseSystem) + estimate.Tokens(prompt)
	if in+minPhraseOut > window {
		return es, rep, fmt.Errorf("the %d statements (~%d tokens) do not fit the model's %d-token window", len(ids), in, window)
	}
	// The answer is not longer than the notes it merges, with their ids.
	answer := estimate.Tokens(prompt) + idTokens*len(ids) + minPhraseOut/16
	comp, err := c.Complete(ctx, llm.Prompt(phraseSystem, prompt), llm.Options{NumCtx: window, MaxTokens: min(phraseOut, window-in, answer)})
	if err != nil {
		return es, rep, err
	}
	used := map[int]bool{}
	var merged []Entry
	for _, line := range strings.Split(comp.Text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		rep.Lines++
		e, parts, why := checkLine(line, ids, es, used)
		if why != "" {
			rep.Rejected = append(rep.Rejected, why)
			continue
		}
		rep.Accepted++
		if len(parts) > 1 {
			rep.Merged += len(parts)
		}
		for _, i := range parts {
			used[i] = true
		}
		merged = append(merged, e)
	}
	var out []Entry
	for i, e := range es {
		if !used[i] {
			out = append(out, e)
		}
	}
	out = append(out, merged...)
	slices.SortFunc(out, rank)
	return out, rep, nil
}

// phrasePrompt lists the current statements with their ids (id → index in es).
func phrasePrompt(es []Entry) (map[string]int, string) {
	ids := map[string]int{}
	var b strings.Builder
	n := map[Kind]int{}
	for i, e := range es {
		if !e.Kind.statement() || e.Superseded != nil {
			continue
		}
		n[e.Kind]++
		id := kindLetters[e.Kind] + strconv.Itoa(n[e.Kind])
		ids[id] = i
		fmt.Fprintf(&b, "[%s] %s\n", id, oneLine(e.Text))
	}
	return ids, b.String()
}

// checkLine reads one line of the model: the entry it stands for and the statements it merges,
// or why it is refused.
func checkLine(line string, ids map[string]int, es []Entry, used map[int]bool) (Entry, []int, string) {
	m := phraseLine().FindStringSubmatch(line)
	if m == nil {
		return Entry{}, nil, "not a cited line: " + line
	}
	text := strings.TrimSpace(m[1])
	var parts []int
	for _, id := range noteID().FindAllString(m[2], -1) {
		i, ok := ids[id]
		if !ok || used[i] || slices.Contains(parts, i) {
			return Entry{}, nil, "cites an unknown or used note " + id + ": " + line
		}
		if len(parts) > 0 && es[i].Kind != es[parts[0]].Kind {
			return Entry{}, nil, "merges notes of different kinds: " + line
		}
		parts = append(parts, i)
	}
	if why := grounded(text, es, parts); why != "" {
		return Entry{}, nil, why + ": " + line
	}
	return mergeParts(text, es, parts), parts, ""
}

// grounded checks that text says nothing its cited statements do not.
func grounded(text string, es []Entry, parts []int) string {
	var cited strings.Builder
	for _, i := range parts {
		cited.WriteString(es[i].Text + "\n")
	}
	src := cited.String()
	srcTerms := terms(src)
	for _, t := range terms(text) {
		if !slices.Contains(srcTerms, t) {
			return fmt.Sprintf("adds %q", t)
		}
	}
	lower := strings.ToLower(src)
	for _, tok := range strings.Fields(text) {
		tok = strings.Trim(tok, ".,;:!?\"'()“”")
		if strings.ContainsAny(tok, "0123456789/-_.=`") && !strings.Contains(lower, strings.ToLower(strings.Trim(tok, "`"))) {
			return fmt.Sprintf("changes %q", tok)
		}
	}
	k := es[parts[0]].Kind
	if k == Constraint && !prohibition().MatchString(text) {
		return "drops the prohibition"
	}
	if k == Rule && prohibition().MatchString(text) {
		return "turns a rule into a prohibition"
	}
	return ""
}

// mergeParts is the entry of a phrased line: the counts of its statements added up, their
// newest sources, their newest date.
func mergeParts(text string, es []Entry, parts []int) Entry {
	e := Entry{Kind: es[parts[0]].Kind, Text: text}
	for _, i := range parts {
		p := es[i]
		e.Count += p.Count
		e.Sessions = max(e.Sessions, p.Sessions)
		if p.Last.After(e.Last) {
			e.Last = p.Last
		}
		e.Sources = addSources(e.Sources, p.Sources...)
	}
	names := map[string]bool{}
	for _, s := range e.Sources {
		names[sourceName(s.Path)] = true
	}
	e.Sessions = max(e.Sessions, len(names))
	e.key = entryKey(e.Kind, e.Text)
	return e
}

// Package audit measures what a compaction kept (ctxc audit). For every compaction recorded in
// a session, the agent's own (a Claude Code compact_boundary and its summary, a Codex compacted
// line, a pi compaction entry) or a ctxc marker, it builds the fact ledger (package ledger) of
// the context the compaction replaced, the effective context just before its record, and looks
// for each fact in the context right after it: the summary and what the agent kept. It reports,
// per category, the facts kept and the facts lost (verbatim, with the line they were on), and
// tokens before and after. A summary that cannot be read (Codex's remote compaction encrypts it)
// is said to be unreadable, not scored.
//
// What ctxc's own guard added inside an agent (the note its SessionStart hook returns, which
// Claude Code stores as a hook_additional_context attachment after the summary and Codex as a
// developer message) is counted apart: facts the agent's context lost that the note put back
// are "restored".
//
// The package imports neither cobra nor viper.
package audit

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// Options of an audit.
type Options struct {
	Last   bool // only the newest compaction of each file
	Format transcript.Format
	// Strict refuses a line that is not valid JSON, and counts a fact as kept only when the
	// context holds it verbatim (ledger.MatchOptions.Strict).
	Strict bool
	Warn   func(transcript.Warning)
}

// Kept counts the facts of one category.
type Kept struct {
	Facts    int `json:"facts"`
	Kept     int `json:"kept"`               // in the context right after the compaction
	Summary  int `json:"summary"`            // in its summary alone
	Restored int `json:"restored,omitempty"` // lost by the agent's context, put back by ctxc's note
}

// Add adds o's counts to k.
func (k *Kept) Add(o Kept) {
	k.Facts += o.Facts
	k.Kept += o.Kept
	k.Summary += o.Summary
	k.Restored += o.Restored
}

// Lost is a fact the context after the compaction does not hold.
type Lost struct {
	Category string `json:"category"`
	Text     string `json:"text"`
	Line     int    `json:"line,omitempty"` // where it was in the file (0: unknown)
}

// Found is a fact the context after the compaction holds, and how it holds it.
type Found struct {
	Category string     `json:"category"`
	Text     string     `json:"text"`
	How      ledger.How `json:"how"`
	Line     int        `json:"line,omitempty"` // where it was in the file (0: unknown)
}

// Who wrote a compaction.
const (
	ByAgent = "agent"
	ByCtxc  = "ctxc"
)

// Compaction is the audit of one compaction (the --json object).
type Compaction struct {
	Type         string            `json:"type"` // "compaction"
	Path         string            `json:"path"`
	Format       transcript.Format `json:"format"`
	Index        int               `json:"index"` // 1-based, among the file's compactions
	Line         int               `json:"line"`  // the line of its record
	By           string            `json:"by"`    // agent or ctxc: who wrote the summary
	Unreadable   string            `json:"unreadable,omitempty"`
	TokensBefore int               `json:"tokens_before"`
	TokensAfter  int               `json:"tokens_after"`
	Total        Kept              `json:"total"`
	Categories   map[string]Kept   `json:"categories,omitempty"`
	// Recall is Total.Kept / Total.Facts; WithNote counts the facts ctxc's note restored too
	// (both 1 with no facts, 0 when unreadable).
	Recall   float64 `json:"recall"`
	WithNote float64 `json:"recall_with_note"`
	Lost     []Lost  `json:"lost,omitempty"`
	// Found lists the facts kept (by the context or ctxc's note), each with how it was found.
	Found []Found `json:"found,omitempty"`

	ByCat [ledger.NumCategories]Kept `json:"-"`
}

// File audits the compactions of one session file, oldest first (only the newest with Last).
// A file without a compaction gives none.
func File(ctx context.Context, path string, o Options) ([]Compaction, error) {
	ropts := transcript.Options{Format: o.Format, Strict: o.Strict, Warn: o.Warn}
	recs, format, err := records(path, ropts)
	if err != nil {
		return nil, err
	}
	first := 0
	if o.Last && len(recs) > 1 {
		first = len(recs) - 1
	}
	ropts.Format, ropts.Warn = format, nil // warnings were given by the first read
	var out []Compaction
	for i := first; i < len(recs); i++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		c, err := one(path, recs[i], ropts)
		if err != nil {
			return out, err
		}
		c.Index = i + 1
		out = append(out, c)
	}
	return out, nil
}

// records reads the whole file once for where its compactions are.
func records(path string, ropts transcript.Options) ([]transcript.CompactionRecord, transcript.Format, error) {
	res, err := transcript.ScanFile(path, ropts)
	if err != nil {
		return nil, "", err
	}
	return res.Stats.Records, res.Stats.Format, nil
}

// one audits the compaction of record r: the ledger of the context before it against the
// context after it.
func one(path string, r transcript.CompactionRecord, ropts transcript.Options) (Compaction, error) {
	c := Compaction{Type: "compaction", Path: path, Format: ropts.Format, Line: r.Line, By: ByAgent}
	_, before, err := transcript.LoadFileUpTo(path, r.Start, ropts)
	if err != nil {
		return c, err
	}
	_, after, err := transcript.LoadFileUpTo(path, r.End, ropts)
	if err != nil {
		return c, err
	}
	notes, err := Notes(path, r)
	if err != nil {
		return c, err
	}
	c.TokensBefore, c.TokensAfter = tokens(before), tokens(after)+estimate.Tokens(notes)
	after, inContext := SplitNotes(after)
	notes += inContext
	summary := summaryText(after)
	if c.Format.IsGeneric() || strings.Contains(summary, transcript.SummaryPreamble[:6]) || strings.Contains(summary, ledger.CarriedTitle) {
		c.By = ByCtxc
	}
	if why := unreadable(after); why != "" {
		c.Unreadable = why
		return c, nil
	}
	led := ledger.Build(transcript.Flatten(before), ledger.Options{})
	score(&c, led, Text(after), summary, notes, ledger.MatchOptions{Strict: ropts.Strict})
	return c, nil
}

// score fills the counts, the recalls, and the facts found and lost.
func score(c *Compaction, led *ledger.Ledger, context, summary, notes string, mo ledger.MatchOptions) {
	inContext := ledger.Match(context, led, mo)
	inSummary := ledger.Match(summary, led, mo)
	inNotes := ledger.Match(notes, led, mo)
	for cat := range ledger.NumCategories {
		k := &c.ByCat[cat]
		name := ledger.Category(cat).String()
		for i, fact := range led.ByCat[cat] {
			k.Facts++
			line := led.Line(ledger.Category(cat), i)
			switch {
			case inContext[cat][i] != ledger.Missing:
				k.Kept++
				c.Found = append(c.Found, Found{Category: name, Text: fact, How: inContext[cat][i], Line: line})
			case inNotes[cat][i] != ledger.Missing:
				k.Restored++
				c.Found = append(c.Found, Found{Category: name, Text: fact, How: inNotes[cat][i], Line: line})
			default:
				c.Lost = append(c.Lost, Lost{Category: name, Text: fact, Line: line})
			}
			if inSummary[cat][i] != ledger.Missing {
				k.Summary++
			}
		}
		c.Total.Add(*k)
		if k.Facts > 0 {
			if c.Categories == nil {
				c.Categories = map[string]Kept{}
			}
			c.Categories[name] = *k
		}
	}
	c.Recall, c.WithNote = 1, 1
	if c.Total.Facts > 0 {
		c.Recall = float64(c.Total.Kept) / float64(c.Total.Facts)
		c.WithNote = float64(c.Total.Kept+c.Total.Restored) / float64(c.Total.Facts)
	}
}

// SplitNotes takes ctxc's notes out of a context (the other messages, the notes' text): Codex
// keeps what a SessionStart hook returned as a developer message of the context.
func SplitNotes(ms []transcript.Message) ([]transcript.Message, string) {
	var kept []transcript.Message
	var notes strings.Builder
	for i := range ms {
		if t := ms[i].TextContent(); !ms[i].Summary && ms[i].Role != transcript.RoleAssistant && strings.HasPrefix(t, NotePrefix) {
			notes.WriteString(t + "\n")
			continue
		}
		kept = append(kept, ms[i])
	}
	return kept, notes.String()
}

// summaryText joins the text of the summary messages of a context.
func summaryText(ms []transcript.Message) string {
	var b strings.Builder
	for i := range ms {
		if ms[i].Summary {
			writeMessage(&b, &ms[i])
		}
	}
	return b.String()
}

// unreadable says why the summary of a context cannot be read: a summary message with no text,
// only opaque content (Codex's remote compaction stores it encrypted).
func unreadable(ms []transcript.Message) string {
	for i := range ms {
		m := &ms[i]
		if !m.Summary {
			continue
		}
		text := false
		for _, b := range m.Blocks {
			if b.Kind != transcript.BlockOpaque && b.Kind != transcript.BlockImage {
				text = true
			}
		}
		if !text {
			return "the summary is encrypted (a remote compaction): only the model provider can read it"
		}
	}
	return ""
}

func tokens(ms []transcript.Message) int {
	n := 0
	for i := range ms {
		n += ms[i].Tokens()
	}
	return n
}

// NotePrefix opens every note ctxc's guard returns to an agent (see package guard): the audit
// recognizes its notes by it.
const NotePrefix = "[ctxc] "

// Notes reads ctxc's notes inside a compaction's records (joined; "" when there is none):
// Claude Code stores what a SessionStart hook returned as an attachment of type
// hook_additional_context, and ctxc's notes start with NotePrefix.
func Notes(path string, r transcript.CompactionRecord) (string, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	records, err := f.Section(r.Start, r.End-r.Start)
	if err != nil {
		return "", err
	}
	lr := jsonl.NewLineReader(records)
	var b strings.Builder
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if !gjson.ValidBytes(l.Bytes) {
			continue
		}
		a := gjson.GetBytes(l.Bytes, "attachment")
		if gjson.GetBytes(l.Bytes, "type").Str != "attachment" || a.Get("type").Str != "hook_additional_context" {
			continue
		}
		a.Get("content").ForEach(func(_, v gjson.Result) bool {
			if v.Type == gjson.String && strings.HasPrefix(v.Str, NotePrefix) {
				b.WriteString(v.Str)
				b.WriteByte('\n')
			}
			return true
		})
	}
	return b.String(), nil
}

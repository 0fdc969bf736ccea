// Package evaluate measures what a compaction keeps (ctxc eval): it compacts a transcript into
// a temporary file with the configured summarizer (the source is never touched), reloads that
// file as an agent would, and counts per category the facts of the ledger (package ledger)
// found in the summary as the summarizer wrote it and in the whole reloaded context. It imports
// neither cobra nor viper.
package evaluate

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Kept counts the facts of one category.
type Kept struct {
	Facts   int `json:"facts"`
	Summary int `json:"summary"` // anywhere in the summary as its summarizer wrote it (before the audit)
	Present int `json:"present"` // in that summary in the form the audit recognizes (so not carried)
	Context int `json:"context"` // anywhere in the reloaded context (head, summary with the carried facts, tail)
}

// Result is the evaluation of one file (the --json object).
type Result struct {
	Type          string            `json:"type"`
	Path          string            `json:"path"`
	Status        compact.Status    `json:"status"`
	Reason        string            `json:"reason,omitempty"`
	Format        transcript.Format `json:"format,omitempty"`
	Provider      string            `json:"provider,omitempty"`
	Model         string            `json:"model,omitempty"`
	Fallback      string            `json:"fallback,omitempty"`
	TokensBefore  int               `json:"tokens_before"`
	TokensAfter   int               `json:"tokens_after,omitempty"`
	SummaryTokens int               `json:"summary_tokens,omitempty"`
	Target        int               `json:"target,omitempty"`
	WithinTarget  bool              `json:"within_target"`
	Seconds       float64           `json:"seconds"`
	Total         Kept              `json:"total"`
	Categories    map[string]Kept   `json:"categories,omitempty"`
	// Recall is Total.Context / Total.Facts, SummaryRecall Total.Summary / Total.Facts (1 with no
	// facts).
	Recall        float64        `json:"recall"`
	SummaryRecall float64        `json:"summary_recall"`
	Ledger        *ledger.Report `json:"ledger,omitempty"`

	ByCat [ledger.NumCategories]Kept `json:"-"`
}

// File evaluates one transcript. o is the compaction's options; its Output, DryRun, Check and
// Now are set here.
func File(ctx context.Context, path string, o compact.Options) (*Result, error) {
	r := &Result{Type: "file", Path: path, Target: o.Target}
	if r.Target <= 0 {
		r.Target = compact.DefaultTarget
	}
	dir, err := os.MkdirTemp("", "ctxc-eval-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	o.Output = filepath.Join(dir, "compacted.jsonl")
	o.DryRun, o.Check = false, false
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	start := time.Now()
	out, err := compact.File(ctx, path, o)
	r.Seconds = time.Since(start).Seconds()
	if out != nil {
		r.Status, r.Reason, r.Format = out.Status, out.Reason, out.Format
		r.Provider, r.Model, r.Fallback = out.Provider, out.Model, out.Fallback
		r.TokensBefore, r.TokensAfter = out.TokensBefore, out.TokensAfter
		r.Ledger = out.Ledger
	}
	if err != nil {
		return r, err
	}
	r.Recall, r.SummaryRecall = 1, 1
	if out.Status != compact.StatusCompacted {
		r.WithinTarget = true
		return r, nil
	}
	_, msgs, err := transcript.LoadFile(o.Output, transcript.Options{})
	if err != nil {
		return r, err
	}
	summaries := 0
	for i := range msgs {
		if msgs[i].Summary {
			summaries++
		}
	}
	// The summary as written (the agent's own wrapper around it in its format not counted).
	if out.Ledger != nil {
		r.SummaryTokens = out.Ledger.Tokens
	}
	r.WithinTarget = r.SummaryTokens <= r.Target && summaries == 1
	found := ledger.Check(audit.Text(msgs), out.Facts)
	for c := range ledger.NumCategories {
		k := Kept{Facts: found[c][0], Context: found[c][1]}
		if out.Ledger != nil {
			k.Summary, k.Present = out.Ledger.MentionedByCat[c], out.Ledger.ByCat[c].Present
		}
		r.ByCat[c] = k
		r.Total.Facts += k.Facts
		r.Total.Summary += k.Summary
		r.Total.Present += k.Present
		r.Total.Context += k.Context
		if k.Facts > 0 {
			if r.Categories == nil {
				r.Categories = map[string]Kept{}
			}
			r.Categories[c.String()] = k
		}
	}
	if r.Total.Facts > 0 {
		r.Recall = float64(r.Total.Context) / float64(r.Total.Facts)
		r.SummaryRecall = float64(r.Total.Summary) / float64(r.Total.Facts)
	}
	return r, nil
}

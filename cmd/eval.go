package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ctxc/ctxc/compact"
	"github.com/ctxc/ctxc/evaluate"
	"github.com/ctxc/ctxc/ledger"
	"github.com/ctxc/ctxc/summarize"
	"github.com/ctxc/ctxc/transcript"
	"github.com/spf13/cobra"
)

func init() {
	extraCommands = append(extraCommands, func(f *Factory) *cobra.Command { return NewCmdEval(f, nil) })
}

// EvalOptions are the inputs of `ctxc eval`: the compaction settings of `ctxc compact` and the
// recall gates.
type EvalOptions struct {
	Compact          CompactOptions
	MinRecall        float64
	MinSummaryRecall float64
}

// NewCmdEval builds `ctxc eval`.
func NewCmdEval(f *Factory, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{Compact: CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now}}
	co := &opts.Compact
	c := &cobra.Command{
		Use:   "eval [PATH...]",
		Short: "Measure which facts a compaction keeps, per category",
		Long: `Compact each transcript into a temporary file with the configured summarizer (the source is never
touched), reload it as its agent would, and report what survived: per category of the fact
ledger (user rules, the last user request, files modified, URLs/ids/versions, earlier requests,
unresolved errors, files read), the facts the summary kept as the summarizer wrote it, and the
facts present anywhere in the reloaded context (head, summary with the facts the audit carried,
tail); tokens before and after, the summary's size against the target, and the time taken.

A file under the threshold is reported as skipped. --min-recall R exits 1 when a compacted
file's context keeps less than R of its facts; --min-summary-recall R does the same for the
summary alone: a CI gate for a model or prompt change.`,
		Example: `  ctxc eval --provider extractive --threshold 20000 ../samples/
  ctxc eval --provider ollama --model llama3.2 --json session.jsonl
  ctxc eval --min-recall 1 --min-summary-recall 0.5 --model qwen3:4b testdata/fixtures/`,
		RunE: func(c *cobra.Command, args []string) error {
			co.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runEval(c.Context(), opts)
		},
	}
	fl := c.Flags()
	addSummarizeFlags(c, co)
	fl.Float64Var(&opts.MinRecall, "min-recall", 0, "exit 1 if a compacted file's context keeps less than this share of its facts (0-1)")
	fl.Float64Var(&opts.MinSummaryRecall, "min-summary-recall", 0, "exit 1 if a summary alone keeps less than this share of its facts (0-1)")
	return c
}

// evalSummary is the final --json object.
type evalSummary struct {
	Type          string  `json:"type"`
	Files         int     `json:"files"`
	Compacted     int     `json:"compacted"`
	Skipped       int     `json:"skipped"`
	Failed        int     `json:"failed"`
	Facts         int     `json:"facts"`
	Summary       int     `json:"summary"`
	Context       int     `json:"context"`
	Recall        float64 `json:"recall"`
	SummaryRecall float64 `json:"summary_recall"`
	BelowMin      int     `json:"below_min_recall"`
}

func runEval(ctx context.Context, opts *EvalOptions) error {
	co := &opts.Compact
	if opts.MinRecall < 0 || opts.MinRecall > 1 || opts.MinSummaryRecall < 0 || opts.MinSummaryRecall > 1 {
		return &UsageError{errors.New("--min-recall and --min-summary-recall take a share between 0 and 1")}
	}
	paths, err := gatherPaths(co.IO, co.Paths, co.From, "eval")
	if err != nil {
		return err
	}
	for _, p := range paths {
		if p == "-" {
			return &UsageError{errors.New("eval reads files, not standard input; use --from - for a list of paths")}
		}
	}
	files, err := expandPaths(paths, opts.Compact.IO.ErrOut)
	if err != nil {
		return err
	}
	format, err := transcript.ParseFormat(co.Global.Format)
	if err != nil {
		return &UsageError{err}
	}
	tiers, err := parseTiers(co.Tiers)
	if err != nil {
		return &UsageError{err}
	}
	copts := compact.Options{
		Threshold: co.Threshold, Window: co.Window, Target: co.Target, Tiers: tiers,
		Zones:  transcript.ZoneOptions{KeepHead: co.KeepHead, KeepTail: co.KeepTail, KeepTailTokens: co.KeepTailTokens},
		Format: format, Strict: co.Global.Strict,
		SummarizeOpts: summarize.Options{MaxParallel: co.Parallel, Window: co.SummaryWindow},
	}
	if !co.Global.Quiet {
		copts.Warn = func(w transcript.Warning) { fmt.Fprintln(co.IO.ErrOut, "warning: "+w.String()) }
	}
	prov, err := newProvider(ctx, co)
	if err != nil {
		return err
	}
	copts.Completer, copts.Redact = prov.completer, prov.redact
	if prov.note != "" && !co.Global.Quiet {
		fmt.Fprintln(co.IO.ErrOut, prov.note)
	}
	if co.Global.Verbose > 1 {
		copts.SummarizeOpts.Logf = func(format string, args ...any) { fmt.Fprintf(co.IO.ErrOut, format+"\n", args...) }
	}

	enc := json.NewEncoder(co.IO.Out)
	enc.SetEscapeHTML(false)
	sum := evalSummary{Type: "summary", Files: len(files)}
	var results []*evaluate.Result
	var firstErr error
	unavailable := false
	for _, path := range files {
		if ctx.Err() != nil {
			break
		}
		r, err := evaluate.File(ctx, path, copts)
		if err != nil {
			sum.Failed++
			if firstErr == nil {
				firstErr = err
			}
			code := exitCode(err)
			if co.Global.JSON {
				enc.Encode(fileError{Type: "error", Path: path, Code: code, Message: err.Error()})
			} else {
				fmt.Fprintln(co.IO.ErrOut, "failed "+err.Error())
			}
			if code == ExitUnavailable {
				unavailable = true
				break
			}
			continue
		}
		if r.Status != compact.StatusCompacted {
			sum.Skipped++
		} else {
			sum.Compacted++
			sum.Facts += r.Total.Facts
			sum.Summary += r.Total.Summary
			sum.Context += r.Total.Context
			if r.Recall < opts.MinRecall || r.SummaryRecall < opts.MinSummaryRecall {
				sum.BelowMin++
			}
		}
		if co.Global.JSON {
			enc.Encode(r)
		}
		results = append(results, r)
	}
	sum.Recall, sum.SummaryRecall = 1, 1
	if sum.Facts > 0 {
		sum.Recall = float64(sum.Context) / float64(sum.Facts)
		sum.SummaryRecall = float64(sum.Summary) / float64(sum.Facts)
	}
	if co.Global.JSON {
		enc.Encode(sum)
	} else {
		printEvalTable(co.IO.Out, results, sum)
	}
	switch {
	case ctx.Err() != nil:
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
	case unavailable:
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("summarizer endpoint unavailable: %v", firstErr)}
	case len(files) == 1 && firstErr != nil:
		return firstErr
	case sum.Failed > 0 && sum.Compacted+sum.Skipped == 0:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("all %d file(s) failed", sum.Failed)}
	case sum.Failed > 0:
		return &ExitError{Code: ExitPartial, Err: fmt.Errorf("%d of %d file(s) failed", sum.Failed, len(files))}
	case sum.BelowMin > 0:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d file(s) below the minimum recall", sum.BelowMin)}
	}
	return nil
}

// evalColumns are the categories shown in the table, in the audit's priority order.
var evalColumns = []ledger.Category{ledger.Rule, ledger.LastRequest, ledger.Modified, ledger.Ref, ledger.Request, ledger.Error, ledger.Read}

var evalHeads = []string{"RULES", "LAST", "MODIFIED", "REFS", "REQUESTS", "ERRORS", "READ"}

// printEvalTable prints one row per file: tokens, summary size, and per category
// "summary/context/facts", then the recall of the context and of the summary alone.
func printEvalTable(w io.Writer, results []*evaluate.Result, s evalSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "FILE\tFORMAT\tTOKENS\tSUMMARY/TARGET\t")
	for _, h := range evalHeads {
		fmt.Fprint(tw, h+"\t")
	}
	fmt.Fprint(tw, "RECALL\tSUMMARY-ONLY\tTIME\t\n")
	for _, r := range results {
		if r.Status != compact.StatusCompacted {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", r.Path, r.Format, human(int64(r.TokensBefore)), "-")
			for range evalHeads {
				fmt.Fprint(tw, "-\t")
			}
			fmt.Fprintf(tw, "%s\t\t%.2fs\t\n", r.Reason, r.Seconds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s→%s\t%s/%s\t", r.Path, r.Format, human(int64(r.TokensBefore)), human(int64(r.TokensAfter)),
			human(int64(r.SummaryTokens)), human(int64(r.Target)))
		for _, c := range evalColumns {
			k := r.ByCat[c]
			if k.Facts == 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%d/%d/%d\t", k.Summary, k.Context, k.Facts)
		}
		fmt.Fprintf(tw, "%.0f%%\t%.0f%%\t%.2fs\t\n", 100*r.Recall, 100*r.SummaryRecall, r.Seconds)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d file(s): %d compacted, %d skipped, %d failed; facts kept in the context %d/%d (%.0f%%), by the summary alone %d/%d (%.0f%%)\n",
		s.Files, s.Compacted, s.Skipped, s.Failed, s.Context, s.Facts, 100*s.Recall, s.Summary, s.Facts, 100*s.SummaryRecall)
	fmt.Fprintln(w, "(per category: kept by the summary alone / present in the reloaded context / facts)")
}

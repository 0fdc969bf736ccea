package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/evaluate"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/spf13/cobra"
)

// EvalOptions are the inputs of `ctxc eval`: the compaction settings of `ctxc compact` and the
// recall gates.
type EvalOptions struct {
	Compact          CompactOptions
	MinRecall        float64
	MinSummaryRecall float64
}

// NewCmdEval builds `ctxc eval`.
func NewCmdEval(f *cmdutil.Factory, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{Compact: CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now, WaitNotice: f.WaitNotice}}
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
summary alone: a CI gate for a model or prompt change. The compactions follow the instructions
compact follows (--instructions TEXT or @FILE, else the "Compact Instructions" section of each
session's project; --no-instructions for none), and the terms they name are facts measured.`,
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
	cmdutil.AddInstructionsFlags(c, &co.Instructions, &co.NoInstructions)
	fl.Float64Var(&opts.MinRecall, "min-recall", 0, "exit 1 if a compacted file's context keeps less than this share of its facts (0-1)")
	fl.Float64Var(&opts.MinSummaryRecall, "min-summary-recall", 0, "exit 1 if a summary alone keeps less than this share of its facts (0-1)")
	cmdutil.FloatRange(fl, "min-recall", 0, 1)
	cmdutil.FloatRange(fl, "min-summary-recall", 0, 1)
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
		return &cmdutil.UsageError{Err: errors.New("--min-recall and --min-summary-recall take a share between 0 and 1")}
	}
	files, err := cmdutil.FileArgs(co.IO, co.Paths, co.From, "eval", "eval reads files, not standard input; use --from - for a list of paths")
	if err != nil {
		return err
	}
	copts, err := compactOptions(co)
	if err != nil {
		return err
	}
	if err := useProvider(ctx, co, &copts); err != nil {
		return err
	}
	instr, err := cmdutil.NewInstructionSource(co.Instructions, co.NoInstructions, copts.Format)
	if err != nil {
		return err
	}
	if !co.Global.Quiet {
		instr.Say = func(s string) { fmt.Fprintln(co.IO.ErrOut, s) }
	}
	enc := json.NewEncoder(co.IO.Out)
	enc.SetEscapeHTML(false)
	results, sum, firstErr, unavailable := evalFiles(ctx, opts, files, copts, instr, enc)
	if co.Global.JSON {
		enc.Encode(sum)
	} else {
		printEvalTable(co.IO.Out, results, sum)
	}
	switch {
	case ctx.Err() != nil:
		return &cmdutil.ExitError{Code: cmdutil.ExitInterrupted, Err: errors.New("interrupted")}
	case unavailable:
		return &cmdutil.ExitError{Code: cmdutil.ExitUnavailable, Err: fmt.Errorf("summarizer endpoint unavailable: %v", firstErr)}
	case len(files) == 1 && firstErr != nil:
		return firstErr
	case sum.Failed > 0 && sum.Compacted+sum.Skipped == 0:
		return cmdutil.BatchExit(ctx, sum.Failed, sum.Failed)
	case sum.Failed > 0:
		return cmdutil.BatchExit(ctx, sum.Failed, len(files))
	case sum.BelowMin > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d file(s) below the minimum recall", sum.BelowMin)}
	}
	return nil
}

// evalFiles evaluates the files one after the other (stopping at an interrupt or a dead
// endpoint), writing each result with --json, and totals them.
func evalFiles(ctx context.Context, opts *EvalOptions, files []string, copts compact.Options, instr *cmdutil.InstructionSource, enc *json.Encoder) (results []*evaluate.Result, sum evalSummary, firstErr error, unavailable bool) {
	co := &opts.Compact
	sum = evalSummary{Type: "summary", Files: len(files)}
	for _, path := range files {
		if ctx.Err() != nil {
			break
		}
		r, err := evalFile(ctx, path, copts, instr)
		if err != nil {
			sum.Failed++
			firstErr = firstOf(firstErr, err)
			reportFileError(co.IO, co.Global.JSON, enc, path, err)
			if cmdutil.ExitCode(err) == cmdutil.ExitUnavailable {
				unavailable = true
				break
			}
			continue
		}
		sum.add(r, opts.MinRecall, opts.MinSummaryRecall)
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
	return results, sum, firstErr, unavailable
}

// evalFile evaluates one file's compaction under its instructions.
func evalFile(ctx context.Context, path string, copts compact.Options, instr *cmdutil.InstructionSource) (*evaluate.Result, error) {
	text, err := instr.For(path)
	if err != nil {
		return nil, err
	}
	copts.Instructions = text
	return evaluate.File(ctx, path, copts)
}

// add counts one file's evaluation.
func (sum *evalSummary) add(r *evaluate.Result, minRecall, minSummaryRecall float64) {
	if r.Status != compact.StatusCompacted {
		sum.Skipped++
		return
	}
	sum.Compacted++
	sum.Facts += r.Total.Facts
	sum.Summary += r.Total.Summary
	sum.Context += r.Total.Context
	if r.Recall < minRecall || r.SummaryRecall < minSummaryRecall {
		sum.BelowMin++
	}
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t", quote.Name(r.Path), r.Format, cmdutil.Thousands(int64(r.TokensBefore)), "-")
			for range evalHeads {
				fmt.Fprint(tw, "-\t")
			}
			fmt.Fprintf(tw, "%s\t\t%.2fs\t\n", r.Reason, r.Seconds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s→%s\t%s/%s\t", quote.Name(r.Path), r.Format, cmdutil.Thousands(int64(r.TokensBefore)), cmdutil.Thousands(int64(r.TokensAfter)),
			cmdutil.Thousands(int64(r.SummaryTokens)), cmdutil.Thousands(int64(r.Target)))
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

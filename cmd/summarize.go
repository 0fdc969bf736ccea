package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// SummarizeOptions are the inputs of `ctxc summarize`: the summarizer settings of `ctxc compact`.
type SummarizeOptions struct {
	Compact CompactOptions
	Budget  int
}

// maxRequest bounds the request read from stdin.
const maxRequest = 1 << 30

// NewCmdSummarize builds `ctxc summarize`, the summarization step an agent's plugin asks of ctxc.
func NewCmdSummarize(f *cmdutil.Factory, runF func(*SummarizeOptions) error) *cobra.Command {
	opts := &SummarizeOptions{Compact: CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now, WaitNotice: f.WaitNotice}}
	c := &cobra.Command{
		Use:   "summarize",
		Short: "Write the summary of an agent's own compaction (for agents' plugins)",
		Long: `Read a summarization request as one JSON object on standard input, the messages an agent is about
to replace at its compaction, and print the summary as one JSON object: what ctxc's pi extension
(ctxc hooks install pi) asks at pi's session_before_compact, and what other agents' plugins can
ask too.

Request:  {"agent":"pi", "messages":[...], "turn_prefix_messages":[...], "previous_summary":"...",
           "first_kept_entry_id":"...", "tokens_before":N}
          messages are pi's AgentMessage objects (preparation.messagesToSummarize).
Answer:   {"summary":"...", "firstKeptEntryId":"...", "tokensBefore":N,
           "details":{"ctxc":{"provider","model","fallback","target","messages","ledger"}}}

The summary is written by the configured summarizer (--provider, --model, --endpoint, or the
config file; the extractive one when no model is configured), within --budget (or --target)
tokens (8,000 by default: an agent's summaries are larger than a marker's), the previous summary read first so that its facts are carried again; then the fact
ledger of the messages is checked against it and every fact it left out is appended verbatim.
Instructions (--instructions TEXT or @FILE; by default the "Compact Instructions" section of the
CLAUDE.md or AGENTS.md of the folder ctxc runs in; --no-instructions for none) come first, the
request's custom_instructions after them.
On any failure ctxc prints nothing on stdout and exits non-zero: the agent compacts on its own.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Budget == 0 && !c.Flags().Changed("target") {
				opts.Budget = compact.DefaultRequestTarget
			}
			if runF != nil {
				return runF(opts)
			}
			return runSummarize(c.Context(), opts)
		},
	}
	addSummarizeFlags(c, &opts.Compact)
	cmdutil.AddInstructionsFlags(c, &opts.Compact.Instructions, &opts.Compact.NoInstructions)
	c.Flags().IntVar(&opts.Budget, "budget", 0, "summary size in tokens (default 8000; the same as --target; set by ctxc hooks install --budget)")
	cmdutil.IntRange(c.Flags(), "budget", 1, cmdutil.MaxTokens, "8000")
	return c
}

func runSummarize(ctx context.Context, opts *SummarizeOptions) error {
	co := &opts.Compact
	data, err := io.ReadAll(io.LimitReader(co.IO.In, maxRequest+1))
	if err != nil {
		return err
	}
	if len(data) > maxRequest {
		return &cmdutil.UsageError{Err: fmt.Errorf("the request on standard input is over %d bytes", maxRequest)}
	}
	var req compact.SummaryRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return &cmdutil.ExitError{Code: cmdutil.ExitData, Err: fmt.Errorf("the request on standard input: %w", err)}
	}
	if opts.Budget < 0 {
		return &cmdutil.UsageError{Err: errors.New("--budget must be positive")}
	}
	o := compact.Options{Target: co.Target, SummarizeOpts: summarize.Options{MaxParallel: co.Parallel, Window: co.SummaryWindow}}
	if opts.Budget > 0 {
		o.Target = opts.Budget
	}
	if o.Instructions, err = summaryInstructions(co); err != nil {
		return err
	}
	prov, err := newProvider(ctx, co)
	if err != nil {
		return err
	}
	o.Client, o.Redact = prov.Client, prov.Redact
	if prov.Note != "" && !co.Global.Quiet {
		fmt.Fprintln(co.IO.ErrOut, prov.Note)
	}
	resp, err := compact.Summarize(ctx, req, o)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(co.IO.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(resp)
}

// summaryInstructions are the instructions of the summary an agent asks for: --instructions, or
// the project's section (the folder the agent runs ctxc in); the request's own are added to them.
func summaryInstructions(co *CompactOptions) (string, error) {
	instr, err := cmdutil.NewInstructionSource(co.Instructions, co.NoInstructions, transcript.FormatUnknown)
	if err != nil {
		return "", err
	}
	if !co.Global.Quiet {
		instr.Say = func(s string) { fmt.Fprintln(co.IO.ErrOut, s) }
	}
	return instr.Here()
}

package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/lint"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// LintOptions are the inputs of `ctxc lint`.
type LintOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Paths []string
	From  string
}

// NewCmdLint builds `ctxc lint`.
func NewCmdLint(f *cmdutil.Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "lint PATH...",
		Short: "Find what would make a session's next API request fail or mislead",
		Long: `Check the effective context of each session (what the agent would send next) and print,
with line numbers, what an API would refuse or what would mislead the model:

  call-without-result            a tool call with no result in the context
  result-without-call            a tool result whose call is not in the context before it
  duplicate-id                   a tool-call id used twice, or a call answered twice
  result-not-after-call          a result separated from its call by other turns
  broken-parent-chain            (Claude Code) a parentUuid naming no record: resume stops there
  summary-inside-kept-range      a second compaction summary inside the context
  context-starts-with-assistant  no user turn first (Anthropic refuses it)

Calls an agent answers itself on resume are not problems (Codex answers a call left open at the
end with "aborted"). Exit status 1 when any problem is found. ctxc repair fixes the calls and
results that do not pair up by appending the agent's own records.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runLint(opts)
		},
	}
	c.Flags().StringVar(&opts.From, "from", "", "read the list of paths from this file (- for standard input), one per line")
	return c
}

func runLint(opts *LintOptions) error {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	paths, err := cmdutil.GatherPaths(opts.IO, opts.Paths, opts.From, "lint")
	if err != nil {
		return err
	}
	files, err := cmdutil.ExpandPaths(paths, opts.IO)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	found, failed := 0, 0
	var lastErr error
	for _, p := range files {
		probs, _, err := lint.File(p, format)
		if err != nil {
			failed++
			lastErr = err
			if opts.Global.JSON {
				enc.Encode(cmdutil.FileError{Type: "error", Path: p, Code: cmdutil.ExitCode(err), Message: err.Error()})
			}
			fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
			continue
		}
		found += len(probs)
		for _, pr := range probs {
			if opts.Global.JSON {
				if err := enc.Encode(struct {
					Type string `json:"type"`
					lint.Problem
				}{"problem", pr}); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintln(opts.IO.Out, pr.String())
		}
	}
	switch {
	case failed > 0:
		return cmdutil.SearchExit(failed, len(files), lastErr)
	case found > 0:
		if !opts.Global.Quiet && !opts.Global.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "%d problem(s) in %d file(s)\n", found, len(files))
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Silent: true}
	}
	return nil
}

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

// RepairOptions are the inputs of `ctxc repair`.
type RepairOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Path       string
	Output     string
	DryRun     bool
	Force      bool
	RepairTail bool
}

// NewCmdRepair builds `ctxc repair`.
func NewCmdRepair(f *cmdutil.Factory, runF func(*RepairOptions) error) *cobra.Command {
	opts := &RepairOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "repair FILE",
		Short: "Append the agent's own records that pair every tool call with its result",
		Long: `Give every tool call of a Claude Code, Codex or pi session its result right after it, by
appending records in the agent's own format (or, with -o, writing a copy with them): a call
without a result gets an error result saying none was recorded, a result that came after other
turns is moved back after its call, a result without a call is left out. The bytes already in
the file stay as they are.

  Claude Code, pi: copies of the records from the first broken response on, with new ids,
                   chained from that response's parent; the agent resumes the new branch.
  Codex:           one compacted item whose replacement_history is the repaired context.

Afterwards ctxc lint runs on the result; what repair does not fix (duplicate ids, a broken
parent chain, a second summary) is printed, with exit status 1.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRepair(opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write a repaired copy here instead of appending to FILE")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what would be written, write nothing")
	c.Flags().BoolVar(&opts.Force, "force", false, "let -o replace an existing file ctxc did not write")
	c.Flags().BoolVar(&opts.RepairTail, "repair-tail", false, "when FILE's last line was cut short (no line end, not valid JSON), move it into FILE.ctxc-tail and repair instead of refusing")
	return c
}

func runRepair(opts *RepairOptions) error {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	res, err := lint.Repair(opts.Path, lint.RepairOptions{Format: format, Output: opts.Output, DryRun: opts.DryRun, Force: opts.Force, RepairTail: opts.RepairTail})
	if err != nil {
		return err
	}
	status := "repaired"
	switch {
	case res.Data == nil:
		status = "nothing to repair"
	case opts.DryRun:
		status = "would repair"
	}
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"type": "file", "path": opts.Path, "status": status, "format": res.Format,
			"output": res.Path, "placeholders": res.Placeholders, "moved": res.Moved, "dropped": res.Dropped,
			"records": res.Records, "problems_left": len(res.Left)}); err != nil {
			return err
		}
	} else if !opts.Global.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "%s %s: %d call(s) given a placeholder result, %d result(s) moved after their call, %d result(s) without a call left out, %d record(s) appended", status, quote.Name(opts.Path), res.Placeholders, res.Moved, res.Dropped, res.Records)
		if opts.Output != "" && res.Path != "" {
			fmt.Fprintf(opts.IO.ErrOut, " to the copy %s", quote.Name(res.Path))
		}
		fmt.Fprintln(opts.IO.ErrOut)
		if res.TailAside != "" {
			fmt.Fprintf(opts.IO.ErrOut, "its cut last line was moved into %s\n", res.TailAside)
		}
	}
	if len(res.Left) > 0 && !opts.DryRun {
		for _, p := range res.Left {
			fmt.Fprintln(opts.IO.ErrOut, "left: "+p.String())
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Silent: true}
	}
	return nil
}

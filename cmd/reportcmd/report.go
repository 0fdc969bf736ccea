// Package reportcmd is `ctxc report`: one HTML page of sessions (context over time, compactions,
// cost).
package reportcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/report"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
	"github.com/spf13/cobra"
)

// ReportOptions are the inputs of `ctxc report`.
type ReportOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions
	Now    func() time.Time

	Paths  []string
	From   string
	Output string
	Open   bool
	Force  bool
	Prices string
	Window int
	Jobs   int
}

// NewCmdReport builds `ctxc report`. runF replaces the run function in tests.
func NewCmdReport(f *cmdutil.Factory, runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{IO: f.IO, Global: &f.Global, Now: f.Now}
	c := &cobra.Command{
		Use:   "report [PATH...] -o FILE",
		Short: "Write one HTML page showing sessions: context over time, compactions, cost",
		Long: `Write one self-contained HTML page (inline CSS and SVG, no script, no network: it opens
from a file and prints) that shows sessions.

Per session: a chart of the context the agent sent at each turn (the usage the agent recorded;
the chars/4 estimate where it records none) against its window, each compaction marked, with its
audit below (facts kept and lost per category, the lost facts verbatim, as ctxc audit); the
largest messages and tool outputs; the cost of the recorded usage per model; the command that
resumes it. A report of one session adds its transcript, tool calls folded and the compaction
boundaries shown.

Over several sessions: sessions, tokens and cost by day, agent, project and model; the sessions
nearest their window; the compactions that lost the most. Each session's section is folded and
has no transcript, so that a report of thousands of sessions stays small.

Cost: the recorded usage (input, output, cache writes and reads) priced per model from the price
table that ships with ctxc (its date and source are on the page) or --prices FILE; a model the
table does not name is said to be unpriced, not guessed. The window: --window, else what the
agent recorded (Codex), else the window of the session's model in the price table.

PATH is a file, a directory (every session below it) or a glob. -o - writes the page to
standard output.`,
		Example: `  ctxc report ~/.claude/projects/-home-me-proj/0b1c….jsonl -o session.html --open
  ctxc report ~/.claude/projects ~/.codex/sessions -o archive.html
  ctxc report --prices my-prices.json --window 1000000 session.jsonl -o - > page.html`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runReport(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&opts.Output, "output", "o", "", "the HTML file to write (- for standard output)")
	fl.BoolVar(&opts.Open, "open", false, "open the written page in the default browser")
	fl.BoolVar(&opts.Force, "force", false, "replace an existing -o file that is not a report ctxc wrote")
	fl.StringVar(&opts.Prices, "prices", "", "price table (JSON, as the shipped one) whose models replace or add to the shipped prices")
	fl.IntVar(&opts.Window, "window", 0, "context window in tokens of every session (default: each session's own)")
	fl.StringVar(&opts.From, "from", "", "read the paths from this file, one per line (- for standard input)")
	fl.IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "sessions read at once")
	cmdutil.IntRange(fl, "window", cmdutil.MinWindow, cmdutil.MaxTokens, "each session's own")
	cmdutil.IntRange(fl, "jobs", 1, cmdutil.MaxJobs, "")
	return c
}

// reportChartPoints bounds the points of each session's chart in a report of several sessions.
const reportChartPoints = 160

func runReport(ctx context.Context, opts *ReportOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ropts, files, err := reportInputs(opts)
	if err != nil {
		return err
	}
	if len(files) == 1 {
		ropts.Transcript = true
	} else {
		ropts.MaxPoints = reportChartPoints
	}
	type result struct {
		path string
		s    *report.Session
		err  error
	}
	read := func(i int) result {
		s, err := report.Analyze(ctx, files[i], ropts)
		return result{files[i], s, err}
	}
	var sessions []*report.Session
	var failed []report.Failure
	var lastErr error
	for r := range cmdutil.InOrder(ctx, len(files), opts.Jobs, read) {
		if r.err != nil {
			failed = append(failed, report.Failure{Path: r.path, Err: r.err.Error()})
			lastErr = r.err
			fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+r.err.Error())
			continue
		}
		sessions = append(sessions, r.s)
	}
	if ctx.Err() != nil {
		return cmdutil.BatchExit(ctx, len(failed), len(files))
	}
	if len(sessions) == 0 {
		return cmdutil.SearchExit(len(failed), len(files), lastErr)
	}
	rep := report.New(sessions, failed, ropts.Prices, opts.Now())
	if err := writeReport(opts, rep); err != nil {
		return err
	}
	if opts.Open && opts.Output != "-" {
		openInBrowser(opts.IO.ErrOut, opts.Output)
	}
	return cmdutil.BatchExit(ctx, len(failed), len(files))
}

// reportInputs checks the flags and finds the sessions.
func reportInputs(opts *ReportOptions) (report.Options, []string, error) {
	var ro report.Options
	switch {
	case opts.Output == "":
		return ro, nil, &cmdutil.UsageError{Err: errors.New("report needs -o FILE (or -o - for standard output)")}
	case opts.Window < 0:
		return ro, nil, &cmdutil.UsageError{Err: fmt.Errorf("--window %d: a window is a positive number of tokens", opts.Window)}
	case opts.Jobs < 1:
		return ro, nil, &cmdutil.UsageError{Err: fmt.Errorf("--jobs %d: at least one", opts.Jobs)}
	}
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return ro, nil, &cmdutil.UsageError{Err: err}
	}
	ro = report.Options{Prices: usage.Shipped(), Window: opts.Window, Format: format, Strict: opts.Global.Strict, Top: 10}
	if opts.Prices != "" {
		if ro.Prices, err = usage.LoadPrices(opts.Prices); err != nil {
			return ro, nil, &cmdutil.ExitError{Code: cmdutil.ExitConfig, Err: err}
		}
	}
	if !opts.Global.Quiet {
		ro.Warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
	}
	paths, err := cmdutil.GatherPaths(opts.IO, opts.Paths, opts.From, "report")
	if err != nil {
		return ro, nil, err
	}
	files, err := cmdutil.ExpandPaths(paths, opts.IO)
	if err != nil {
		return ro, nil, err
	}
	if err := reportOutputOK(opts, files); err != nil {
		return ro, nil, err
	}
	return ro, files, nil
}

// reportOutputOK checks -o by the rule of every file written from inputs (safewrite.CheckOutput):
// never one of the sessions shown, its folder exists, and an existing file is replaced only when
// it is a page ctxc wrote and left unchanged, or with --force.
func reportOutputOK(opts *ReportOptions, files []string) error {
	if opts.Output == "-" {
		return nil
	}
	return safewrite.CheckOutput(opts.Output, files, opts.Force)
}

// writeReport writes the page: to standard output, or to the file through a temporary file
// renamed over it, so that a failed write leaves what was there.
func writeReport(opts *ReportOptions, rep *report.Report) error {
	if opts.Output == "-" {
		return report.Write(opts.IO.Out, rep)
	}
	err := safewrite.WriteAtomic(opts.Output, func(w io.Writer) error { return report.Write(w, rep) })
	if err != nil {
		return fmt.Errorf("writing the report %s: %w", opts.Output, err)
	}
	safewrite.RecordOutput(opts.Output) // written again without --force while unchanged
	if !opts.Global.Quiet {
		abs, _ := filepath.Abs(opts.Output)
		fmt.Fprintf(opts.IO.ErrOut, "report of %d session(s) written to %s\n", len(rep.Sessions), abs)
	}
	return nil
}

// openInBrowser opens a file in the desktop's browser; a failure is said, not an error.
func openInBrowser(errOut io.Writer, path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", abs)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", abs)
	default:
		cmd = exec.Command("xdg-open", abs)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(errOut, "warning: could not open %s: %v\n", abs, err)
		return
	}
	go cmd.Wait()
}

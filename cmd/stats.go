package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
	"github.com/spf13/cobra"
)

// StatsOptions are the inputs of `ctxc stats`.
type StatsOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Paths  []string
	From   string
	Window int
	Top    int
	Jobs   int
	Prices string
}

// NewCmdStats builds `ctxc stats`. runF replaces the run function in tests.
func NewCmdStats(f *cmdutil.Factory, runF func(*StatsOptions) error) *cobra.Command {
	opts := &StatsOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "stats [PATH...]",
		Short: "Token estimates of transcripts: whole history and effective context",
		Long: `Print, per file: format, lines, invalid lines, messages by role, tool calls and results,
characters, estimated tokens of the whole history and of the effective context (what the agent
would send to the model now, after its last compaction), compactions, and the usage the agent
recorded when it did, and its cost: the recorded usage (input, output, cache writes and reads)
priced per model from the price table that ships with ctxc (its date and source in
docs/report.md) or --prices FILE; a model the table does not name is listed as unpriced, not
guessed. On a terminal, WINDOW shows how full each session's window is as a bar (the window:
--window, else the one the agent recorded, else its model's in the price table).

PATH is a file, a directory (every *.jsonl below it), a glob, or - for standard input.

Token estimate: tokens = ceil(chars / 4) per message, where chars are Unicode code points of the
text the model sees: message text, thinking text, tool-call name + arguments JSON, tool-result
text. Not counted: signatures, encrypted reasoning, base64 image data (an image counts 1,600
tokens), metadata records, and duplicates (Claude Code's split lines and toolUseResult copies,
Codex event_msg copies, the verbatim tail copies after a ctxc marker). Expect about ±20%
against real tokenizers (prose is over-estimated, code and JSON under-estimated); the
"calibration" field compares the estimate with the usage the agent recorded.`,
		Example: `  ctxc stats ~/.claude/projects/-home-me-proj/
  ctxc stats --window 200000 session.jsonl
  ctxc stats --json ~/.codex/sessions | jq -s 'map(select(.type=="file")) | sort_by(-.effective_tokens)'`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runStats(opts)
		},
	}
	c.Flags().IntVar(&opts.Window, "window", 0, "context window in tokens: also show how full the effective context is")
	c.Flags().IntVar(&opts.Top, "top", 0, "list the N largest messages with their line numbers")
	c.Flags().StringVar(&opts.From, "from", "", "read the list of paths from this file (- for standard input), one per line")
	c.Flags().IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "files read at once")
	cmdutil.IntRange(c.Flags(), "window", cmdutil.MinWindow, cmdutil.MaxTokens, "no window")
	cmdutil.IntRange(c.Flags(), "top", 0, cmdutil.MaxCount, "")
	cmdutil.IntRange(c.Flags(), "jobs", 1, cmdutil.MaxJobs, "")
	c.Flags().StringVar(&opts.Prices, "prices", "", "price table (JSON, as the shipped one) whose models replace or add to the shipped prices")
	return c
}

// statsLine is one --json object.
type statsLine struct {
	Type string `json:"type"`
	*transcript.Stats
	Cost *usage.Cost `json:"cost,omitempty"`
}

type statsTotals struct {
	Type        string   `json:"type"`
	Files       int      `json:"files"`
	Failed      int      `json:"failed"`
	Lines       int      `json:"lines"`
	BadLines    int      `json:"bad_lines"`
	Messages    int      `json:"messages"`
	ToolCalls   int      `json:"tool_calls"`
	ToolResults int      `json:"tool_results"`
	Chars       int64    `json:"chars"`
	Tokens      int64    `json:"tokens"`
	EffTokens   int64    `json:"effective_tokens"`
	Bytes       int64    `json:"bytes"`
	CostUSD     float64  `json:"cost_usd"`
	Unpriced    []string `json:"unpriced_models,omitempty"`

	// The table's other columns, summed too so that every column of the totals row holds its
	// own total (not in the JSON object: messages counts them all).
	user, assistant, tool, compactions int
	costed                             int // files with recorded usage, priced or not
}

// statsMemoryLimit is the Go heap target of `ctxc stats` (unless GOMEMLIMIT says otherwise):
// the scan keeps a few words per line and a few MB of batches, so the default GC pacing (twice
// the live heap) is what decides peak RSS; a soft limit keeps a 1 GB scan under 64 MiB at no
// measurable cost in speed. Files with lines bigger than the limit simply exceed it.
const statsMemoryLimit = 48 << 20

func runStats(opts *StatsOptions) error {
	defer tuneGC()()
	paths, err := cmdutil.GatherPaths(opts.IO, opts.Paths, opts.From, "stats")
	if err != nil {
		return err
	}
	files, err := cmdutil.ExpandPaths(paths, opts.IO)
	if err != nil {
		return err
	}
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	ropts := transcript.Options{Format: format, Strict: opts.Global.Strict, Top: opts.Top, Window: opts.Window}
	if !opts.Global.Quiet {
		ropts.Warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
	}
	prices, err := cmdutil.Prices(opts.Prices)
	if err != nil {
		return err
	}
	tot, lastErr, err := printStats(opts, files, ropts, prices)
	if err != nil {
		return err
	}
	switch {
	case tot.Failed == 0:
		return nil
	case tot.Files == 0 && tot.Failed == 1:
		return &cmdutil.ExitError{Code: cmdutil.ExitCode(lastErr), Err: lastErr, Silent: true}
	}
	return cmdutil.BatchExit(context.Background(), tot.Failed, tot.Failed+tot.Files)
}

// tuneGC sets the garbage collector for a scan, unless the user set GOMEMLIMIT or GOGC, and
// returns what puts it back.
func tuneGC() func() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	oldLimit := debug.SetMemoryLimit(statsMemoryLimit)
	if os.Getenv("GOGC") != "" {
		return func() { debug.SetMemoryLimit(oldLimit) }
	}
	// The scan keeps little (about 12 MB live on a 1 GB file) and allocates a few hundred MB:
	// collecting half as often (12 collections per GB instead of 29) costs about 10 MB of peak
	// RSS, the limit still bounds the heap, and on 2 cores each collection stops the workers to
	// scan their stacks (0.37 s against 0.38–0.41 s).
	oldPercent := debug.SetGCPercent(statsGCPercent)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// statsGCPercent is GOGC during a scan (see tuneGC).
const statsGCPercent = 200

type statsResult struct {
	path string
	st   *transcript.Stats
	cost *usage.Cost
	err  error
}

// printStats reads the files with opts.Jobs workers and prints them in the order given: a line
// each with --json, else a table; then the totals.
func printStats(opts *StatsOptions, files []string, ropts transcript.Options, prices *usage.Prices) (tot statsTotals, lastErr, err error) {
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	tot = statsTotals{Type: "totals"}
	var table []statsResult
	read := func(i int) statsResult {
		st, cost, err := statsOne(opts.IO, files[i], ropts, prices)
		return statsResult{files[i], st, cost, err}
	}
	for r := range cmdutil.InOrder(context.Background(), len(files), opts.Jobs, read) {
		if r.err != nil {
			tot.Failed++
			lastErr = r.err
			if opts.Global.JSON {
				enc.Encode(cmdutil.FileError{Type: "error", Path: r.path, Code: cmdutil.ExitCode(r.err), Message: r.err.Error()})
			}
			fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+quote.Name(r.err.Error()))
			continue
		}
		tot.add(r.st)
		tot.addCost(r.cost)
		if opts.Global.JSON {
			if err := enc.Encode(statsLine{Type: "file", Stats: r.st, Cost: r.cost}); err != nil {
				return tot, lastErr, err
			}
			continue
		}
		table = append(table, r)
	}
	if opts.Global.JSON {
		return tot, lastErr, enc.Encode(tot)
	}
	if len(table) > 0 {
		var bar func(*transcript.Stats, *usage.Cost) string
		if opts.IO.IsStdoutTTY() {
			bar = windowBar(opts.Window, prices)
		}
		printStatsTable(opts.IO.Out, table, tot, opts.Window > 0, bar)
		printCostNote(opts.IO.Out, tot, prices)
	}
	return tot, lastErr, nil
}

// add counts one file in the totals.
func (tot *statsTotals) add(st *transcript.Stats) {
	tot.Files++
	tot.Lines += st.Lines
	tot.BadLines += st.BadLines
	tot.Messages += st.Messages.Total()
	tot.user += st.Messages.User
	tot.assistant += st.Messages.Assistant
	tot.tool += st.Messages.Tool
	tot.compactions += st.Markers + st.Compactions
	tot.ToolCalls += st.ToolCalls
	tot.ToolResults += st.ToolResults
	tot.Chars += st.Chars
	tot.Tokens += st.Tokens
	tot.EffTokens += st.EffTokens
	tot.Bytes += st.Bytes
}

func statsOne(ios *iostreams.IOStreams, path string, ropts transcript.Options, prices *usage.Prices) (*transcript.Stats, *usage.Cost, error) {
	var res *transcript.Result
	var err error
	var rs []usage.Response
	if path == "-" {
		in, done, derr := transcript.Decompressed(ios.In)
		if derr != nil {
			return nil, nil, derr
		}
		defer done()
		var wait func() []usage.Response
		in, wait = teeUsage(in)
		res, err = transcript.Scan(in, "<stdin>", ropts)
		rs = wait()
		if err == nil {
			rs = recordedOnly(res.Stats.Format, rs)
		}
	} else {
		// The usage is read while the scan runs: a second read of the file, which the scan
		// alone would leave a core idle for on a large session.
		recorded := readUsage(path, ropts.Format)
		res, err = transcript.ScanFile(path, ropts)
		got, uerr := recorded()
		if err == nil {
			rs, err = recordedOnly(res.Stats.Format, got), uerr
		}
	}
	if err != nil {
		return nil, nil, err
	}
	return res.Stats, statsCost(res.Stats, rs, prices), nil
}

func printStatsTable(w io.Writer, results []statsResult, tot statsTotals, window bool, bar func(*transcript.Stats, *usage.Cost) string) {
	rows := make([]*transcript.Stats, len(results))
	for i, r := range results {
		rows[i] = r.st
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	hdr := "FORMAT\tLINES\tBAD\tUSER\tASSIST\tTOOL\tCALLS\tTOKENS\tEFFECTIVE\t"
	if window {
		hdr += "WINDOW\t"
	}
	if bar != nil {
		hdr += "FULL\t"
	}
	hdr += "COMPACTED\tRECORDED\tCOST\t FILE"
	fmt.Fprintln(tw, hdr)
	for i, st := range rows {
		m := st.Messages
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t", st.Format, st.Lines, st.BadLines,
			m.User, m.Assistant, m.Tool, st.ToolCalls, cmdutil.Thousands(st.Tokens), cmdutil.Thousands(st.EffTokens))
		if window {
			fmt.Fprintf(tw, "%.0f%%\t", st.WindowPct)
		}
		if bar != nil {
			fmt.Fprintf(tw, "%s\t", bar(st, results[i].cost))
		}
		rec := "-"
		if st.Usage != nil && st.Usage.LastContext > 0 {
			rec = cmdutil.Thousands(int64(st.Usage.LastContext))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t %s\n", st.Markers+st.Compactions, rec, costCell(results[i].cost), quote.Name(st.Path))
	}
	if len(rows) > 1 {
		// One cell per column, "-" where a total means nothing (a window's share, the context
		// a provider recorded): an empty cell reads as a shifted row.
		fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t", tot.Lines, tot.BadLines,
			tot.user, tot.assistant, tot.tool, tot.ToolCalls, cmdutil.Thousands(tot.Tokens), cmdutil.Thousands(tot.EffTokens))
		if window {
			fmt.Fprint(tw, "-\t")
		}
		if bar != nil {
			fmt.Fprint(tw, "-\t")
		}
		fmt.Fprintf(tw, "%d\t-\t%s\t %d files\n", tot.compactions, totalCostCell(tot), tot.Files)
	}
	tw.Flush()
	for _, st := range rows {
		if len(st.Top) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nlargest messages in %s:\n", quote.Name(st.Path))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "LINE\tROLE\tKIND\tTOKENS\t")
		for _, t := range st.Top {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t\n", t.Line, t.Role, t.Kind, cmdutil.Thousands(int64(t.Tokens)))
		}
		tw.Flush()
	}
}

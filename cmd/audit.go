package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// AuditOptions are the inputs of `ctxc audit`.
type AuditOptions struct {
	IO        *iostreams.IOStreams
	Global    *cmdutil.GlobalOptions
	Paths     []string
	From      string
	Last      bool
	MinRecall float64
	MaxLost   int
	Jobs      int
}

// NewCmdAudit builds `ctxc audit`.
func NewCmdAudit(f *cmdutil.Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "audit [PATH...]",
		Short: "Tell what each compaction of a session kept and lost",
		Long: `For every compaction recorded in a session, the agent's own (Claude Code's compact_boundary and
summary, Codex's compacted line, pi's compaction entry) or ctxc's, build the fact ledger of the
context it replaced (the effective context just before its record: user rules, the last user
request, files modified, URLs/ids/versions, earlier requests, unresolved errors, files read) and
look for each fact in the context right after it (the summary and what the agent kept). Per
compaction: facts kept per category, the facts lost verbatim with the line they were on, tokens
before and after. Facts that ctxc's guard put back inside Claude Code (its SessionStart note)
are counted as restored, apart from what the agent kept.

Facts are matched as people write them: a file by its full path, its path in the project or its
base name when no other file of the session has it; a URL or id in another written form; a rule
or request in other words that keep its key terms, negations and numbers. Each kept fact says how
it was found (--json: "found"; the text output lists those not found verbatim). --strict counts
only facts held verbatim (and refuses lines that are not valid JSON).

A summary the agent stored encrypted (Codex's remote compaction) is reported as unreadable, not
scored. --last audits only the newest compaction of each file. --min-recall R exits 1 when a
compaction's context (with ctxc's notes) keeps less than R of its facts.`,
		Example: `  ctxc audit ~/.claude/projects/
  ctxc audit --last --json session.jsonl
  ctxc audit --min-recall 0.9 ~/.pi/agent/sessions/`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runAudit(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&opts.Last, "last", false, "audit only the newest compaction of each file")
	fl.Float64Var(&opts.MinRecall, "min-recall", 0, "exit 1 if a compaction keeps less than this share of its facts (0-1)")
	fl.IntVar(&opts.MaxLost, "max-lost", 20, "lost facts listed per compaction in the text output (0: all)")
	fl.StringVar(&opts.From, "from", "", "read the paths from this file, one per line (- for standard input)")
	fl.IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "files audited at once (the output stays in the order of the files)")
	cmdutil.FloatRange(fl, "min-recall", 0, 1)
	cmdutil.IntRange(fl, "max-lost", 0, cmdutil.MaxCount, "all")
	cmdutil.IntRange(fl, "jobs", 1, cmdutil.MaxJobs, "")
	return c
}

// auditTotal is the final --json object.
type auditTotal struct {
	Type        string                `json:"type"`
	Files       int                   `json:"files"`
	Failed      int                   `json:"failed"`
	Compactions int                   `json:"compactions"`
	Unreadable  int                   `json:"unreadable"`
	Total       audit.Kept            `json:"total"`
	Categories  map[string]audit.Kept `json:"categories,omitempty"`
	Recall      float64               `json:"recall"`
	WithNote    float64               `json:"recall_with_note"`
	BelowMin    int                   `json:"below_min_recall"`

	byCat [ledger.NumCategories]audit.Kept
}

func (t *auditTotal) add(c *audit.Compaction, min float64) {
	t.Compactions++
	if c.Unreadable != "" {
		t.Unreadable++
		return
	}
	for cat := range t.byCat {
		t.byCat[cat].Add(c.ByCat[cat])
	}
	if c.WithNote < min {
		t.BelowMin++
	}
}

func (t *auditTotal) finish() {
	for cat, k := range t.byCat {
		t.Total.Add(k)
		if k.Facts > 0 {
			if t.Categories == nil {
				t.Categories = map[string]audit.Kept{}
			}
			t.Categories[ledger.Category(cat).String()] = k
		}
	}
	t.Recall, t.WithNote = 1, 1
	if t.Total.Facts > 0 {
		t.Recall = float64(t.Total.Kept) / float64(t.Total.Facts)
		t.WithNote = float64(t.Total.Kept+t.Total.Restored) / float64(t.Total.Facts)
	}
}

func runAudit(ctx context.Context, opts *AuditOptions) error {
	if opts.MinRecall < 0 || opts.MinRecall > 1 {
		return &cmdutil.UsageError{Err: errors.New("--min-recall takes a share between 0 and 1")}
	}
	files, format, err := auditFiles(opts)
	if err != nil {
		return err
	}
	aopts := audit.Options{Last: opts.Last, Format: format, Strict: opts.Global.Strict}
	if !opts.Global.Quiet {
		aopts.Warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	total := auditTotal{Type: "total", Files: len(files)}
	var firstErr error
	for r := range auditAll(ctx, files, aopts, opts.Jobs) {
		if ctx.Err() != nil && errors.Is(r.err, context.Canceled) {
			continue // (interrupted: counted by auditExit)
		}
		if r.err != nil {
			total.Failed++
			firstErr = firstOf(firstErr, r.err)
			reportFileError(opts.IO, opts.Global.JSON, enc, r.path, r.err)
			continue
		}
		for i := range r.cs {
			total.add(&r.cs[i], opts.MinRecall)
			if opts.Global.JSON {
				enc.Encode(&r.cs[i])
			} else {
				printAudit(opts.IO.Out, &r.cs[i], opts.MaxLost)
			}
		}
	}
	total.finish()
	if opts.Global.JSON {
		enc.Encode(total)
	} else {
		printAuditTotal(opts.IO.Out, &total)
	}
	return auditExit(ctx, &total, len(files), firstErr)
}

// fileAudit is the audit of one file.
type fileAudit struct {
	path string
	cs   []audit.Compaction
	err  error
}

// auditAll audits the files with jobs workers and yields their audits in the order of the files
// (stopping at an interrupt).
func auditAll(ctx context.Context, files []string, o audit.Options, jobs int) <-chan *fileAudit {
	return cmdutil.InOrder(ctx, len(files), jobs, func(i int) *fileAudit {
		cs, err := audit.File(ctx, files[i], o)
		return &fileAudit{path: files[i], cs: cs, err: err}
	})
}

// auditFiles expands the paths and parses --format.
func auditFiles(opts *AuditOptions) ([]string, transcript.Format, error) {
	files, err := cmdutil.FileArgs(opts.IO, opts.Paths, opts.From, "audit", "audit reads files, not standard input; use --from - for a list of paths")
	if err != nil {
		return nil, "", err
	}
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return nil, "", &cmdutil.UsageError{Err: err}
	}
	return files, format, nil
}

func firstOf(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

// reportFileError says that one file could not be audited.
func reportFileError(ios *iostreams.IOStreams, asJSON bool, enc *json.Encoder, path string, err error) {
	if asJSON {
		enc.Encode(cmdutil.FileError{Type: "error", Path: path, Code: cmdutil.ExitCode(err), Message: err.Error()})
		return
	}
	fmt.Fprintln(ios.ErrOut, "failed "+quote.Name(err.Error()))
}

func auditExit(ctx context.Context, t *auditTotal, files int, firstErr error) error {
	switch {
	case ctx.Err() != nil:
		return &cmdutil.ExitError{Code: cmdutil.ExitInterrupted, Err: errors.New("interrupted")}
	case files == 1 && firstErr != nil:
		return firstErr
	case t.Failed > 0:
		return cmdutil.BatchExit(ctx, t.Failed, files)
	case t.BelowMin > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d compaction(s) below the minimum recall", t.BelowMin)}
	}
	return nil
}

// printAudit prints one compaction: a head line, the counts per category, the lost facts.
func printAudit(w io.Writer, c *audit.Compaction, maxLost int) {
	fmt.Fprintf(w, "%s:%d: compaction %d (%s, written by %s): ~%s → ~%s tokens", quote.Name(c.Path), c.Line, c.Index, c.Format, author(c.By),
		cmdutil.Thousands(int64(c.TokensBefore)), cmdutil.Thousands(int64(c.TokensAfter)))
	if c.Unreadable != "" {
		fmt.Fprintf(w, "; unreadable: %s\n", c.Unreadable)
		return
	}
	fmt.Fprintf(w, "; kept %d of %d facts (%.0f%%)", c.Total.Kept, c.Total.Facts, 100*c.Recall)
	if c.Total.Restored > 0 {
		fmt.Fprintf(w, ", %d more restored by ctxc's note (%.0f%%)", c.Total.Restored, 100*c.WithNote)
	}
	fmt.Fprintln(w)
	var parts []string
	for cat, k := range c.ByCat {
		if k.Facts > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", ledger.Category(cat), k.Kept+k.Restored, k.Facts))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintln(w, "  "+strings.Join(parts, " · "))
	}
	printFound(w, c.Found, maxLost)
	for i, l := range c.Lost {
		if maxLost > 0 && i == maxLost {
			fmt.Fprintf(w, "  … %d more lost facts (--max-lost 0 lists all)\n", len(c.Lost)-i)
			break
		}
		fmt.Fprintf(w, "  lost %s (line %d): %s\n", l.Category, l.Line, oneLine(l.Text, 160))
	}
}

// printFound prints how the kept facts were found: the count per way, then each fact kept in
// another form than its own words (what a reader may want to check), at most max (0: all).
func printFound(w io.Writer, found []audit.Found, max int) {
	var n [ledger.Restated + 1]int
	var other []audit.Found
	for _, f := range found {
		if f.How <= ledger.Restated {
			n[f.How]++
		}
		if f.How != ledger.Verbatim {
			other = append(other, f)
		}
	}
	if len(other) == 0 {
		return
	}
	var parts []string
	for h, k := range n {
		if k > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k, ledger.How(h)))
		}
	}
	fmt.Fprintln(w, "  found: "+strings.Join(parts, " · "))
	for i, f := range other {
		if max > 0 && i == max {
			fmt.Fprintf(w, "  … %d more (--max-lost 0 lists all)\n", len(other)-i)
			break
		}
		fmt.Fprintf(w, "  kept %s by %s (line %d): %s\n", f.Category, f.How, f.Line, oneLine(f.Text, 160))
	}
}

func printAuditTotal(w io.Writer, t *auditTotal) {
	fmt.Fprintf(w, "%d file(s), %d compaction(s)", t.Files, t.Compactions)
	if t.Unreadable > 0 {
		fmt.Fprintf(w, " (%d unreadable)", t.Unreadable)
	}
	if t.Failed > 0 {
		fmt.Fprintf(w, ", %d failed", t.Failed)
	}
	fmt.Fprintf(w, ": facts kept %d/%d (%.0f%%)", t.Total.Kept, t.Total.Facts, 100*t.Recall)
	if t.Total.Restored > 0 {
		fmt.Fprintf(w, ", with ctxc's notes %d/%d (%.0f%%)", t.Total.Kept+t.Total.Restored, t.Total.Facts, 100*t.WithNote)
	}
	fmt.Fprintln(w)
}

// oneLine is s on one line, at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// author names who wrote a compaction's summary, for the text output.
func author(by string) string {
	if by == audit.ByAgent {
		return "the agent"
	}
	return by
}

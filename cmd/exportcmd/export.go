// Package exportcmd is `ctxc export`: sessions written as Parquet tables, locally or into a
// bucket, for the query engines teams already run.
package exportcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/export"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// ExportOptions are the inputs of `ctxc export`.
type ExportOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Sources  []string
	Dest     string // --parquet: a folder or s3://BUCKET/PREFIX
	NoRedact bool
	DryRun   bool
	Prices   string
	Jobs     int
}

// NewCmdExport builds `ctxc export`. runF replaces the run function in tests.
func NewCmdExport(f *cmdutil.Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "export --parquet DEST SRC...",
		Short: "Write sessions as Parquet tables for a team's queries (DuckDB, Trino, Spark), secrets redacted",
		Long: `Write the sessions under SRC (files, directories, ctxc archives, globs: as stats takes them)
as Parquet tables in DEST (a folder or s3://BUCKET/PREFIX): sessions, messages (one row per
message that stats counts, with its role, text, tokens, tool and time), usage (the usage the agent
recorded per response and model, priced) and compactions (their span, tokens before and after,
and the audit's facts kept and lost per category). Each table is Hive-partitioned by agent and
date: messages/agent=codex/date=2026-11-28/part-KEY.parquet, one part per session.

The export is incremental: a session whose file did not change since the last run is not read
again (a run with nothing changed writes nothing); a session that changed is exported anew and
its parts are replaced, each atomically. DEST/.ctxc-export.json records what was exported.

Secrets in the text (API keys, tokens, private keys, passwords in URLs and assignments,
connection strings) are replaced by a typed placeholder with a short hash of the secret, such as
[REDACTED:aws-access-key:3f9a1c]; --no-redact keeps the text as it is. The sessions are only
read. The schema, the patterns and example queries: docs/team-archive.md.`,
		Example: `  ctxc export --parquet ~/sessions-parquet ~/.claude/projects ~/.codex/sessions
  ctxc export --parquet s3://team-sessions/parquet ~/sessions-archive
  duckdb -c "select agent, sum(tokens) from read_parquet('~/sessions-parquet/messages/**/*.parquet', hive_partitioning=true) group by agent"`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.setArgs(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runExport(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Dest, "parquet", "", "write Parquet tables into this folder or s3://BUCKET/PREFIX")
	c.Flags().BoolVar(&opts.NoRedact, "no-redact", false, "keep secrets in the text as they are")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what would be exported; write nothing")
	c.Flags().StringVar(&opts.Prices, "prices", "", "price table (JSON, as the shipped one) whose models replace or add to the shipped prices")
	c.Flags().IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "sessions exported at once (the output stays in the order of the files)")
	cmdutil.IntRange(c.Flags(), "jobs", 1, cmdutil.MaxJobs, "")
	return c
}

func (o *ExportOptions) setArgs(args []string) error {
	switch {
	case o.Dest == "":
		return &cmdutil.UsageError{Err: errors.New("export needs --parquet DEST (a folder or s3://BUCKET/PREFIX)")}
	case len(args) == 0:
		return &cmdutil.UsageError{Err: errors.New("export needs SRC... (session files, directories or archives)")}
	}
	for _, s := range args {
		if s == "-" {
			return &cmdutil.UsageError{Err: errors.New("export reads files: standard input cannot be a SRC")}
		}
	}
	o.Sources = args
	return nil
}

// Summary is the last --json object of a run.
type Summary struct {
	Type      string `json:"type"`
	Files     int    `json:"files"`
	New       int    `json:"new"`
	Changed   int    `json:"changed"`
	Unchanged int    `json:"unchanged"`
	Failed    int    `json:"failed"`
	Messages  int    `json:"messages"`
	Redacted  int    `json:"redacted"`
	Parts     int    `json:"parts"`
	Bytes     int64  `json:"bytes"`
	DryRun    bool   `json:"dry_run,omitempty"`
}

func (s *Summary) add(r export.Result) {
	switch r.Status {
	case export.StatusNew:
		s.New++
	case export.StatusChanged:
		s.Changed++
	default:
		s.Unchanged++
		return
	}
	s.Messages += r.Messages
	s.Redacted += r.Redacted
	s.Parts += len(r.Parts)
	s.Bytes += r.Bytes
}

func runExport(ctx context.Context, opts *ExportOptions) error {
	eo, dest, err := exportDest(ctx, opts)
	if err != nil {
		return err
	}
	srcs, err := exportSources(opts, dest)
	if err != nil {
		return err
	}
	sum, err := exportInto(ctx, opts, dest, eo, srcs)
	if err != nil {
		return err
	}
	printExportSummary(opts, sum)
	return cmdutil.BatchExit(ctx, sum.Failed, sum.Files)
}

// exportDest resolves --parquet: a local folder, or the staging folder of a bucket with the
// bucket to send the parts to.
func exportDest(ctx context.Context, opts *ExportOptions) (export.Options, string, error) {
	prices, err := cmdutil.Prices(opts.Prices)
	if err != nil {
		return export.Options{}, "", err
	}
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return export.Options{}, "", &cmdutil.UsageError{Err: err}
	}
	eo := export.Options{Format: format, Redact: !opts.NoRedact, DryRun: opts.DryRun, Prices: prices}
	if !objstore.IsURL(opts.Dest) {
		return eo, opts.Dest, nil
	}
	store, err := cmdutil.OpenBucket(ctx, opts.Dest)
	if err != nil {
		return eo, "", err
	}
	stage, err := archive.CacheDir("export-stage", store.Endpoint(), store.String())
	if err != nil {
		return eo, "", err
	}
	eo.Store = store
	return eo, stage, nil
}

// exportSources finds the session files under each SRC and names them as ctxc archive does
// (without .zst: an archived session and its source are one session).
func exportSources(opts *ExportOptions, dest string) ([]export.Source, error) {
	roots, err := cmdutil.SourceRoots(opts.Sources, opts.IO.ErrOut)
	if err != nil {
		return nil, err
	}
	if err := safewrite.CheckApart(dest, roots); err != nil {
		return nil, err
	}
	var out []export.Source
	for _, root := range roots {
		files, err := cmdutil.ExpandPaths([]string{root}, opts.IO)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			name, err := archive.NameFor(root, f)
			if err != nil {
				return nil, err
			}
			name = strings.TrimSuffix(strings.TrimSuffix(name, ".zst"), ".zst")
			out = append(out, export.Source{Path: f, Name: name})
		}
	}
	return out, nil
}

// exportInto exports the sources into dest, printing a line per session exported.
func exportInto(ctx context.Context, opts *ExportOptions, dest string, eo export.Options, srcs []export.Source) (Summary, error) {
	sum := Summary{Type: "summary", Files: len(srcs), DryRun: opts.DryRun}
	e, err := export.Open(dest, eo)
	if err != nil {
		return sum, err
	}
	bar := iostreams.NewProgress(opts.IO, opts.Global.Bars(), len(srcs))
	bar.Describe("exporting")
	type exported struct {
		src export.Source
		r   export.Result
		err error
	}
	// Sessions are exported at once, but the files of one session name (a session and its
	// archive, or one under two SRCs) in turn, in the order given, so that the last one given
	// is what DEST holds, as in a run on one core.
	groups := sameName(srcs)
	done := cmdutil.InOrder(ctx, len(groups), opts.Jobs, func(g int) []exported {
		var out []exported
		for _, i := range groups[g] {
			if ctx.Err() != nil {
				break
			}
			r, err := e.File(ctx, srcs[i])
			out = append(out, exported{srcs[i], r, err})
		}
		return out
	})
	for xs := range done {
		for _, x := range xs {
			bar.Add()
			if !opts.Global.Quiet {
				for _, w := range x.r.Warnings {
					bar.Println(opts.IO.ErrOut, "warning: "+w.String())
				}
			}
			if x.err != nil {
				sum.Failed++
				printExportError(opts, bar, x.src.Path, x.err)
				continue
			}
			sum.add(x.r)
			printExportResult(opts, bar, x.r)
		}
	}
	bar.Finish()
	return sum, e.Close(ctx)
}

// sameName groups the indexes of sources by their session name, in the order of each name's
// first source.
func sameName(srcs []export.Source) [][]int {
	var groups [][]int
	at := map[string]int{}
	for i, s := range srcs {
		g, ok := at[s.Name]
		if !ok {
			g = len(groups)
			at[s.Name] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// printExportResult prints one session: every one with --json, those written otherwise.
func printExportResult(opts *ExportOptions, bar *iostreams.Progress, r export.Result) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			Type string `json:"type"`
			export.Result
		}{"file", r})
		return
	}
	if opts.Global.Quiet || r.Status == export.StatusUnchanged {
		return
	}
	verb := map[bool]string{true: "would write", false: "wrote"}[opts.DryRun]
	bar.Println(opts.IO.Out, fmt.Sprintf("%-9s %s: %s %d messages, %d usage, %d compactions (%s %s, %d secrets redacted)",
		r.Status, quote.Name(r.Path), verb, r.Messages, r.Usage, r.Compactions, r.Agent, r.Date, r.Redacted))
}

func printExportError(opts *ExportOptions, bar *iostreams.Progress, path string, err error) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(cmdutil.FileError{Type: "error", Path: path, Code: cmdutil.ExitCode(err), Message: err.Error()})
	}
	bar.Println(opts.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
}

func printExportSummary(opts *ExportOptions, s Summary) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return
	}
	if opts.Global.Quiet {
		return
	}
	what := "exported"
	if s.DryRun {
		what = "dry run, nothing written"
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s: %d session(s): %d new, %d changed, %d unchanged, %d failed; %d messages, %d secrets redacted, %d parts (%d bytes)\n",
		what, s.Files, s.New, s.Changed, s.Unchanged, s.Failed, s.Messages, s.Redacted, s.Parts, s.Bytes)
}

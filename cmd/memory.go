package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/memory"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// MemoryOptions are the inputs of `ctxc memory`.
type MemoryOptions struct {
	IO       *iostreams.IOStreams
	Global   *cmdutil.GlobalOptions
	Paths    []string
	From     string
	Update   string
	DryRun   bool
	MinCount int
	Max      int
	Jobs     int
	LLM      bool
	// Summarizer holds the provider settings of --llm (the flags of ctxc compact).
	Summarizer CompactOptions
}

// NewCmdMemory builds `ctxc memory`.
func NewCmdMemory(f *cmdutil.Factory, runF func(*MemoryOptions) error) *cobra.Command {
	opts := &MemoryOptions{IO: f.IO, Global: &f.Global}
	opts.Summarizer = CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now, WaitNotice: f.WaitNotice}
	c := &cobra.Command{
		Use:   "memory [PATH...]",
		Short: "Extract what the user keeps telling the agent into a memory file",
		Long: `Read sessions (files, or folders such as an agent's project directory) and list their durable
facts: the rules and preferences the user stated, the constraints they set (never, don't, must
not), decisions with their reason, the commands that build and test the project, and the files
changed most. The same statement in several sessions is one entry with its count, its last date
and its sources (session file:line); a statement the user later reversed is struck through and
points to the newer one. Extraction is done by code from what the user typed and the agent's tool
calls: every entry has a source line that holds it.

The output is Markdown for a memory file (--json: one JSON object per entry, then a total).
--update FILE merges it into FILE (CLAUDE.md, AGENTS.md) between the markers
<!-- ctxc:memory:start --> and <!-- ctxc:memory:end -->, adding the section at the end the first
time; text outside the markers is never changed, entries already in the section that these
sessions do not hold are kept, and running it again over the same sessions changes nothing.
--dry-run prints the diff instead of writing; without --update it changes nothing (memory writes a file
only with --update): the Markdown is printed as always.

--llm asks the configured summarizer (--provider, --model, --endpoint, or the config file) to
merge statements that say the same thing and phrase them shorter. Code checks every line it
writes: it must cite the statements it stands for, use only their words, paths and flags, and
keep a prohibition a prohibition; a line that fails is dropped and its statements stay as they
were extracted. Commands and files are never given to the model.`,
		Example: `  ctxc memory ~/.claude/projects/-home-me-src-app/
  ctxc memory --update CLAUDE.md ~/.claude/projects/-home-me-src-app/
  ctxc memory --update AGENTS.md --dry-run ~/.codex/sessions/
  ctxc memory --json --min-count 2 ~/.pi/agent/sessions/`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runMemory(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Update, "update", "", "merge the memory into the ctxc section of this file (created if missing)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "write nothing: with --update, print the diff; alone, print the Markdown (memory writes a file only with --update)")
	fl.IntVar(&opts.MinCount, "min-count", 1, "leave out entries seen fewer times")
	fl.IntVar(&opts.Max, "max", memory.DefaultMax, "entries per section (commands and files: at most 10)")
	fl.StringVar(&opts.From, "from", "", "read the paths from this file, one per line (- for standard input)")
	fl.IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "files read at once")
	cmdutil.IntRange(fl, "min-count", 1, cmdutil.MaxCount, "")
	cmdutil.IntRange(fl, "max", 1, cmdutil.MaxCount, "")
	cmdutil.IntRange(fl, "jobs", 1, cmdutil.MaxJobs, "")
	fl.BoolVar(&opts.LLM, "llm", false, "merge and phrase statements with the configured summarizer (checked by code)")
	addProviderFlags(c, &opts.Summarizer)
	return c
}

// memoryTotal is the final --json object.
type memoryTotal struct {
	Type    string `json:"type"`
	Files   int    `json:"files"`
	Failed  int    `json:"failed"`
	Bytes   int64  `json:"bytes"`
	Entries int    `json:"entries"`
	Update  string `json:"update,omitempty"`
	Changed bool   `json:"changed,omitempty"`
}

func runMemory(ctx context.Context, opts *MemoryOptions) error {
	files, err := cmdutil.FileArgs(opts.IO, opts.Paths, opts.From, "memory", "memory reads files, not standard input; use --from - for a list of paths")
	if err != nil {
		return err
	}
	if opts.Update != "" {
		// Refused before the sessions are read: the file to update is one of them, a folder, ...
		if _, err := safewrite.CheckDest(opts.Update, files); err != nil {
			return err
		}
	}
	mo, err := memoryReadOptions(opts)
	if err != nil {
		return err
	}
	if mo.Refine, err = memoryRefiner(ctx, opts); err != nil {
		return err
	}
	failed := 0
	mo.Warn = func(path string, err error) {
		failed++
		fmt.Fprintln(opts.IO.ErrOut, "failed "+quote.Name(err.Error()))
	}
	m, err := memory.Read(ctx, files, mo)
	if err != nil {
		return err
	}
	total := memoryTotal{Type: "total", Files: len(files), Failed: failed, Bytes: m.Bytes, Entries: len(m.Entries)}
	entries := m.Entries
	if mo.Refine != nil && opts.Update == "" {
		entries = mo.Refine(entries)
		total.Entries = len(entries)
	}
	if opts.Update != "" {
		u, err := memory.UpdateFile(opts.Update, m, files, mo, opts.DryRun)
		if err != nil {
			return err
		}
		entries, total.Update, total.Changed, total.Entries = u.Entries, u.Path, u.Changed, len(u.Entries)
		reportUpdate(opts, u)
	}
	if err := printMemory(opts, entries, total); err != nil {
		return err
	}
	return cmdutil.BatchExit(ctx, failed, len(files))
}

func memoryReadOptions(opts *MemoryOptions) (memory.Options, error) {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return memory.Options{}, err
	}
	mo := memory.Options{Read: memory.ReadOptions{Format: format}, Jobs: opts.Jobs, MinCount: opts.MinCount, Max: opts.Max}
	if opts.Update != "" {
		abs, err := filepath.Abs(opts.Update)
		if err != nil {
			return mo, err
		}
		mo.Base = filepath.Dir(abs)
	}
	return mo, nil
}

// reportUpdate says what --update did: the diff on a dry run, one line otherwise.
func reportUpdate(opts *MemoryOptions, u *memory.FileUpdate) {
	switch {
	case opts.DryRun && u.Changed:
		opts.IO.Out.Write(u.Diff)
	case opts.DryRun:
		fmt.Fprintf(opts.IO.ErrOut, "%s: unchanged\n", opts.Update)
	case u.Changed:
		fmt.Fprintf(opts.IO.ErrOut, "%s: %d entries (%d new)\n", opts.Update, len(u.Entries), u.Added)
	default:
		fmt.Fprintf(opts.IO.ErrOut, "%s: unchanged (%d entries)\n", opts.Update, len(u.Entries))
	}
}

// printMemory writes the entries: JSON Lines with --json; Markdown unless --update wrote them.
func printMemory(opts *MemoryOptions, entries []memory.Entry, total memoryTotal) error {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		for i := range entries {
			if err := enc.Encode(memoryEntry{Type: "entry", Entry: &entries[i]}); err != nil {
				return err
			}
		}
		return enc.Encode(total)
	}
	if opts.Update == "" {
		_, err := opts.IO.Out.Write(memory.Markdown(entries))
		return err
	}
	return nil
}

type memoryEntry struct {
	Type string `json:"type"`
	*memory.Entry
}

// memoryRefiner is the --llm pass: nil without --llm; with no model configured it says so and
// leaves the entries as extracted; a failing model leaves them too, with a warning.
func memoryRefiner(ctx context.Context, opts *MemoryOptions) (func([]memory.Entry) []memory.Entry, error) {
	if !opts.LLM {
		return nil, nil
	}
	prov, err := newProvider(ctx, &opts.Summarizer)
	if err != nil {
		return nil, err
	}
	warn := func(s string) {
		if !opts.Global.Quiet {
			fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+s)
		}
	}
	if prov.Client == nil {
		warn("--llm: no model configured (--model, or model: in the config file): the entries are as extracted")
		return nil, nil
	}
	return func(es []memory.Entry) []memory.Entry {
		out, rep, err := memory.Phrase(ctx, prov.Client, es)
		if err != nil {
			warn("--llm: " + err.Error() + ": the entries are as extracted")
			return es
		}
		warn(fmt.Sprintf("--llm: %d of %d lines of the model kept, %d statements merged", rep.Accepted, rep.Lines, rep.Merged))
		return out
	}, nil
}

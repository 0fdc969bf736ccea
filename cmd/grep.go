package cmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/index"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// GrepOptions are the inputs of `ctxc grep`.
type GrepOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Pattern    string
	Paths      []string
	From       string
	Fixed      bool
	IgnoreCase bool
	Roles      []string
	Around     int
	Context    bool
	Index      bool
	DB         string
	Jobs       int
}

// NewCmdGrep builds `ctxc grep`.
func NewCmdGrep(f *cmdutil.Factory, runF func(*GrepOptions) error) *cobra.Command {
	opts := &GrepOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "grep PATTERN PATH...",
		Short: "Search the conversation text of sessions, including what compactions summarized",
		Long: `Search the messages of sessions (every format) for PATTERN, an RE2 regular expression
(-F: a fixed string). The whole history is searched, including the messages that later
compactions summarized and the summaries themselves; --context searches only the effective
context (what the agent would send now). The text searched is the decoded text the model sees
(JSON escapes undone): message text, thinking, tool results, tool-call names and arguments.
Metadata (ids, paths of the session, usage) is not searched.

Output: file:line: role: snippet, one per matching message (matches highlighted on a terminal);
with -C N the N messages before and after are printed as file:line- role: text. Roles are
system, developer, user, assistant, tool and summary (a compaction summary).

--json prints {"path","line","role","message","match","covered_by","covered_span"} per message:
message is the message's index in the history (or the context), covered_by the line of the
later compaction record whose summarized span holds the line (covered_span: that span, when
the compaction recorded it). --json and -C decode every line; otherwise only the lines that
can hold a match are decoded (a byte-level prefilter on the pattern's literal).
CTXC_GREP_DECODE_ALL=1 in the environment decodes every line, whatever the flags: the same
hits, found slower (for a bug report about a missed or extra hit).

Exit status: 0 when a message matched, 1 when none did, other codes on errors.`,
		Example: `  ctxc grep -i 'migration plan' ~/.claude/projects/-home-me-proj/
  ctxc grep -F 'TypeError: x is undefined' --role tool session.jsonl
  ctxc grep --json 'deploy' ~/.codex/sessions | jq 'select(.covered_by)'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Pattern, opts.Paths = args[0], args[1:]
			if runF != nil {
				return runF(opts)
			}
			return runGrep(opts)
		},
	}
	c.Flags().BoolVarP(&opts.Fixed, "fixed-strings", "F", false, "PATTERN is a fixed string, not a regular expression")
	c.Flags().BoolVarP(&opts.IgnoreCase, "ignore-case", "i", false, "ignore case")
	c.Flags().StringSliceVar(&opts.Roles, "role", nil, "only messages of these roles (user, assistant, tool, system, developer, summary)")
	c.Flags().IntVarP(&opts.Around, "context-messages", "C", 0, "print N messages of context before and after each match")
	c.Flags().BoolVar(&opts.Context, "context", false, "search only the effective context, not the whole history")
	c.Flags().BoolVar(&opts.Index, "index", false, "read only the files the index (ctxc index) says can match; files that changed since are read too")
	c.Flags().StringVar(&opts.DB, "db", "", "index folder for --index (default $XDG_CACHE_HOME/ctxc/index)")
	c.Flags().StringVar(&opts.From, "from", "", "read the list of paths from this file (- for standard input), one per line")
	c.Flags().IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "files searched at once (a file of 64 MB or more is searched alone, by all cores)")
	cmdutil.IntRange(c.Flags(), "context-messages", 0, cmdutil.MaxCount, "")
	cmdutil.IntRange(c.Flags(), "jobs", 1, cmdutil.MaxJobs, "")
	return c
}

func runGrep(opts *GrepOptions) error {
	defer grepMemory()()
	p, gopts, err := grepPattern(opts)
	if err != nil {
		return err
	}
	paths, err := cmdutil.GatherPaths(opts.IO, opts.Paths, opts.From, "grep")
	if err != nil {
		return err
	}
	var ix *index.Reader
	if opts.Index {
		if ix = openGrepIndex(opts); ix != nil {
			defer ix.Close()
		}
	}
	walk := filepath.WalkDir
	if ix != nil {
		ix.Ask(p) // (answered while the folders are walked)
		walk = ix.Walker().WalkDir
	}
	files, err := cmdutil.ExpandWith(paths, opts.IO, opts.IO.ErrOut, true, walk)
	if err != nil {
		return err
	}
	pr := newGrepPrinter(opts, p)
	defer pr.out.Flush()
	var parts map[string]grep.Ranges
	if ix != nil {
		files, parts = grepIndex(opts, ix, files, p)
		grepMemoryAbove()
	}
	search := func(path string, emit func(grep.Hit) error) error {
		if path == "-" {
			return grepStdin(opts, p, gopts, emit)
		}
		return grep.FileRanges(path, p, gopts, parts[path], emit)
	}
	grep.Files(files, sizesOf(parts), opts.Jobs, search, pr.emit, pr.fail)
	return pr.finish(len(files))
}

// grepMemory sets grep's memory limit and collection rate, unless the environment sets them,
// and returns what puts them back.
func grepMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	limit := debug.SetMemoryLimit(statsMemoryLimit)
	if os.Getenv("GOGC") != "" {
		return func() { debug.SetMemoryLimit(limit) }
	}
	// Decoding matching lines allocates their text and keeps almost none of it: with the
	// memory limit bounding the heap, collecting less often costs no memory and saves about a
	// quarter of the CPU time on files where most lines match.
	gc := debug.SetGCPercent(400)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}

// grepMemoryAbove raises grep's memory limit by the heap in use now: the index's view of the
// sessions and its answer, which the search keeps to its end. The limit then bounds what
// reading the files adds; under a limit that the index alone nearly fills, the collector would
// run without pause (a pattern in every session of an 11 GB archive took 141 s instead of 37 s).
func grepMemoryAbove() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	in := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(in)
	if in[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(statsMemoryLimit + int64(in[0].Value.Uint64()))
	}
}

// grepPattern compiles the pattern and reads the flags that shape the search.
func grepPattern(opts *GrepOptions) (*grep.Pattern, grep.Options, error) {
	p, err := grep.Compile(opts.Pattern, opts.Fixed, opts.IgnoreCase)
	if err != nil {
		return nil, grep.Options{}, &cmdutil.UsageError{Err: err}
	}
	if opts.Around < 0 {
		return nil, grep.Options{}, &cmdutil.UsageError{Err: fmt.Errorf("-C must be 0 or more")}
	}
	gopts := grep.Options{Context: opts.Context, Around: opts.Around, Indexed: opts.Global.JSON}
	if gopts.Format, err = transcript.ParseFormat(opts.Global.Format); err != nil {
		return nil, grep.Options{}, &cmdutil.UsageError{Err: err}
	}
	if gopts.Roles, err = grep.ParseRoles(opts.Roles); err != nil {
		return nil, grep.Options{}, &cmdutil.UsageError{Err: err}
	}
	return p, gopts, nil
}

// grepPrinter prints grep's hits (text, or --json objects) and the files that failed, and
// counts them for the exit status.
type grepPrinter struct {
	opts    *GrepOptions
	out     *bufio.Writer
	enc     *json.Encoder
	color   bool
	matched int // matching messages printed
	failed  int // files that failed
	lastErr error
}

// newGrepPrinter prints to opts' standard output, highlighting matches on a terminal (the
// pattern then marks them in its snippets).
func newGrepPrinter(opts *GrepOptions, p *grep.Pattern) *grepPrinter {
	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	color := opts.IO.IsStdoutTTY() && !opts.Global.JSON && os.Getenv("NO_COLOR") == ""
	if !color {
		p.WithoutHighlights()
	}
	return &grepPrinter{opts: opts, out: out, enc: enc, color: color}
}

// emit prints a hit, or "--" between groups of -C (nothing with --json).
func (pr *grepPrinter) emit(h grep.Hit) error {
	if h.IsBreak() {
		if !pr.opts.Global.JSON {
			_, err := pr.out.WriteString("--\n")
			return err
		}
		return nil
	}
	if h.Match {
		pr.matched++
	}
	if pr.opts.Global.JSON {
		return pr.enc.Encode(grepJSON{Type: "match", Hit: h, Text: h.Snippet.Text})
	}
	return writeHit(pr.out, h, pr.color)
}

// fail says that a file failed, on stderr (and with --json as an object on stdout, after the
// hits printed before it).
func (pr *grepPrinter) fail(path string, err error) {
	pr.failed++
	pr.lastErr = err
	pr.out.Flush()
	if pr.opts.Global.JSON {
		pr.enc.Encode(cmdutil.FileError{Type: "error", Path: path, Code: cmdutil.ExitCode(err), Message: err.Error()})
	}
	fmt.Fprintln(pr.opts.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
}

// finish flushes the output and gives the exit status of a search of n files: the error of
// the files when all of them failed, a partial failure when some did, 1 when nothing matched.
func (pr *grepPrinter) finish(n int) error {
	if err := pr.out.Flush(); err != nil {
		return err
	}
	if pr.failed > 0 {
		return cmdutil.SearchExit(pr.failed, n, pr.lastErr)
	}
	if pr.matched == 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: errNoMatch, Silent: true}
	}
	return nil
}

// errNoMatch is grep's answer "nothing matched" (exit 1).
var errNoMatch = errors.New("nothing matched")

// noMatch says whether err is grep's "nothing matched".
func noMatch(err error) bool { return errors.Is(err, errNoMatch) }

// grepIndex narrows files to those the index says can hold a match: the files whose indexed
// bytes hold the pattern's literal, and those it cannot answer for (changed since they were
// indexed, or not indexed), said on stderr. parts says, of a file whose lines can match only
// in some blocks, which ranges of it to read (the others are read whole). The lines read are
// read as a scan reads them, so the hits are a scan's.
func grepIndex(opts *GrepOptions, ix *index.Reader, files []string, p *grep.Pattern) ([]string, map[string]grep.Ranges) {
	read, ranges, stale, states := ix.Candidates(files, p)
	parts := map[string]grep.Ranges{}
	for i, path := range read {
		if len(ranges[i].Parts) > 0 || ranges[i].Size > 0 {
			parts[path] = ranges[i]
		}
	}
	if !opts.Global.Quiet {
		for i, f := range stale {
			if f == "-" {
				continue // standard input is read as always
			}
			fmt.Fprintf(opts.IO.ErrOut, "ctxc: %s: %s: read instead (ctxc index updates it)\n", quote.Name(f), states[i])
		}
	}
	return read, parts
}

// sizesOf gives the sizes the index knows of the files it named (none without the index).
func sizesOf(parts map[string]grep.Ranges) map[string]int64 {
	sizes := make(map[string]int64, len(parts))
	for path, rs := range parts {
		if rs.Size > 0 {
			sizes[path] = rs.Size
		}
	}
	return sizes
}

// openGrepIndex opens grep's index; nil, said on stderr, when it cannot be used (grep then
// reads every file).
func openGrepIndex(opts *GrepOptions) *index.Reader {
	dir, err := indexPath(opts.DB)
	if err == nil {
		var ix *index.Reader
		if ix, err = index.Open(dir); err == nil {
			if err = ix.Load(); err == nil {
				return ix
			}
			ix.Close()
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "ctxc: %v: reading the files instead\n", err)
	return nil
}

// grepStdin searches standard input (spooled: the search maps or re-reads the file), naming it
// "-" in the output.
func grepStdin(opts *GrepOptions, p *grep.Pattern, gopts grep.Options, emit func(grep.Hit) error) error {
	tmp, err := spoolStdin(opts.IO.In)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = grep.File(tmp, p, gopts, func(h grep.Hit) error {
		if h.Path == tmp {
			h.Path = "-"
		}
		return emit(h)
	})
	return renamePathErr(err, tmp, "<stdin>")
}

type grepJSON struct {
	Type string `json:"type"`
	grep.Hit
	Text string `json:"text"`
}

func writeHit(w *bufio.Writer, h grep.Hit, color bool) error {
	sep := ":"
	if !h.Match {
		sep = "-"
	}
	// Written piece by piece (not fmt.Fprintf): a frequent pattern has a hit per line.
	w.WriteString(quote.Name(h.Path))
	w.WriteByte(':')
	var num [20]byte
	w.Write(strconv.AppendInt(num[:0], int64(h.Line), 10))
	w.WriteString(sep)
	w.WriteByte(' ')
	w.WriteString(h.Role)
	w.WriteString(": ")
	text := h.Snippet.Text
	if !color || len(h.Snippet.Matches) == 0 {
		w.WriteString(text)
	} else {
		var b strings.Builder
		at := 0
		for _, m := range h.Snippet.Matches {
			if m[0] < at || m[1] > len(text) {
				continue
			}
			b.WriteString(text[at:m[0]])
			b.WriteString("\x1b[1;31m")
			b.WriteString(text[m[0]:m[1]])
			b.WriteString("\x1b[0m")
			at = m[1]
		}
		b.WriteString(text[at:])
		w.WriteString(b.String())
	}
	return w.WriteByte('\n')
}

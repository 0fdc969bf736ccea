package cmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/expand"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// ExpandOptions are the inputs of `ctxc expand`.
type ExpandOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Path   string
	Marker int
	As     string
}

// NewCmdExpand builds `ctxc expand`.
func NewCmdExpand(f *cmdutil.Factory, runF func(*ExpandOptions) error) *cobra.Command {
	opts := &ExpandOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "expand FILE",
		Short: "Print the original messages a compaction replaced",
		Long: `Print the messages that a compaction summarized, read from the span of lines its ctxc
provenance names (source.from_line..to_line; in source.path for a file compact -o wrote) and
checked against the recorded SHA-256 first: a span that changed since is an error naming it.
Any compaction ctxc wrote counts: {"compact":...} markers and the agents' own records (Claude
Code compact_boundary, Codex compacted, pi compaction) with ctxc's provenance on them.

--marker N picks the N-th such compaction of the file (1 = the first; default the last).
--as lines (default) prints the file lines of those messages byte for byte; openai or anthropic
prints them as API messages (JSONL); text prints "line: role: text".`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runExpand(opts)
		},
	}
	c.Flags().IntVar(&opts.Marker, "marker", 0, "which compaction: 1 = the first in the file (default: the last)")
	cmdutil.IntRange(c.Flags(), "marker", 1, cmdutil.MaxCount, "the last")
	c.Flags().StringVar(&opts.As, "as", "lines", "output: lines (as stored), openai, anthropic or text")
	return c
}

func runExpand(opts *ExpandOptions) error {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	if opts.Marker < 0 {
		return &cmdutil.UsageError{Err: fmt.Errorf("--marker must be 1 or more")}
	}
	switch opts.As {
	case "lines", "openai", "anthropic", "text":
	default:
		return &cmdutil.UsageError{Err: fmt.Errorf("unknown --as %q (want lines, openai, anthropic or text)", opts.As)}
	}
	ex, err := expand.At(opts.Path, opts.Marker, format)
	if err != nil {
		return err
	}
	if !opts.Global.Quiet {
		checked := "sha256 checked"
		if ex.Agent {
			checked = expand.AgentNote
		}
		fmt.Fprintf(opts.IO.ErrOut, "%s:%d: %d message(s) from lines %d-%d of %s (%s)\n",
			quote.Name(opts.Path), ex.Marker, len(ex.Messages), ex.From, ex.To, quote.Name(ex.Source), checked)
	}
	switch opts.As {
	case "openai", "anthropic":
		var warn func(transcript.Warning)
		if !opts.Global.Quiet {
			warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
		}
		if err := transcript.CheckUTF8(ex.Source, ex.Messages, opts.Global.Strict, warn); err != nil {
			return err
		}
		return msglist.WriteMessages(opts.IO.Out, ex.Messages, msglist.OutputDialect(opts.As))
	case "text":
		w := bufio.NewWriter(opts.IO.Out)
		for _, m := range ex.Messages {
			fmt.Fprintf(w, "%d: %s: ", m.Line, m.Role)
			var parts []string
			for _, b := range m.Blocks {
				switch b.Kind {
				case transcript.BlockToolCall:
					parts = append(parts, fmt.Sprintf("[call %s %s %s]", b.ID, b.Name, b.Args))
				case transcript.BlockToolResult:
					parts = append(parts, fmt.Sprintf("[result %s] %s", b.ID, b.Text))
				case transcript.BlockText, transcript.BlockThinking:
					parts = append(parts, b.Text)
				}
			}
			fmt.Fprintln(w, strings.Join(parts, "\n  "))
		}
		return w.Flush()
	}
	w := bufio.NewWriter(opts.IO.Out)
	for _, l := range ex.Lines {
		w.Write(l)
	}
	return w.Flush()
}

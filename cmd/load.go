package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// LoadOptions are the inputs of `ctxc load`.
type LoadOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Path string
	As   string
	Raw  bool
}

// NewCmdLoad builds `ctxc load`.
func NewCmdLoad(f *cmdutil.Factory, runF func(*LoadOptions) error) *cobra.Command {
	opts := &LoadOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "load FILE",
		Short: "Print the effective context of a transcript as JSONL",
		Long: `Print what the agent would send to the model now: after the last compaction (its own, or a
ctxc marker), following each agent's reload rule. The output is one message per line, valid for
the chosen API (--as openai, the default; anthropic; or ctxc, which keeps messages as written and
turns summaries back into markers):

  - every tool result answers a call that precedes it: a call whose result is missing gets a
    placeholder error result; a result with no call before it is dropped (both said on stderr);
    a call left open at the very end of an interrupted session stays as it is;
  - anthropic: roles alternate starting with user; system and developer messages become user
    text; thinking blocks are dropped unless copied verbatim (their signature cannot be rebuilt).

Messages already written in the output's shape are copied byte for byte. FILE may be - for
standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runLoad(opts)
		},
	}
	c.Flags().StringVar(&opts.As, "as", "openai", "output shape: openai, anthropic or ctxc")
	c.Flags().BoolVar(&opts.Raw, "no-repair", false, "do not add placeholder results or drop orphaned results")
	return c
}

func runLoad(opts *LoadOptions) error {
	as, err := msglist.ParseOutputDialect(opts.As)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	ropts := transcript.Options{Format: format, Strict: opts.Global.Strict}
	if !opts.Global.Quiet {
		ropts.Warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
	}
	path := opts.Path
	if path == "-" {
		tmp, err := spoolStdin(opts.IO.In)
		if err != nil {
			return err
		}
		defer os.Remove(tmp)
		path = tmp
	} else if info, err := transcript.Stat(path); err != nil {
		return err
	} else if info.IsDir() {
		return fmt.Errorf("%s: is a directory (load takes one file)", path)
	}
	_, msgs, err := transcript.LoadFile(path, ropts)
	if err != nil {
		if opts.Path == "-" {
			err = renamePathErr(err, path, "<stdin>")
		}
		return err
	}
	if !opts.Raw {
		var rep msglist.PairReport
		msgs, rep = msglist.PairToolCalls(msgs)
		if rep.Placeholders > 0 && !opts.Global.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "note: %d tool call(s) without a result in the context were answered with a placeholder error result\n", rep.Placeholders)
		}
		if rep.Moved > 0 && !opts.Global.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "note: %d message(s) between a tool call and its result were moved after the result\n", rep.Moved)
		}
		if rep.DroppedResults > 0 && !opts.Global.Quiet {
			fmt.Fprintf(opts.IO.ErrOut, "note: %d tool result(s) without a preceding call were dropped\n", rep.DroppedResults)
		}
	}
	shown := opts.Path
	if shown == "-" {
		shown = "<stdin>"
	}
	if err := transcript.CheckUTF8(shown, msgs, opts.Global.Strict, ropts.Warn); err != nil {
		return err
	}
	return msglist.WriteMessages(opts.IO.Out, msgs, as)
}

// spoolStdin copies standard input to a temporary file: loading re-reads lines by offset.
func spoolStdin(in io.Reader) (string, error) {
	f, err := os.CreateTemp("", "ctxc-stdin-*.jsonl")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(f, in); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("reading standard input: %w", err)
	}
	return f.Name(), nil
}

func renamePathErr(err error, from, to string) error {
	var de *transcript.DataError
	if errors.As(err, &de) && de.Path == from {
		c := *de
		c.Path = to
		return &c
	}
	return err
}

package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/handoff"
	"github.com/spf13/cobra"
)

// HandoffOptions are the inputs of `ctxc handoff` and `ctxc fork`.
type HandoffOptions struct {
	Compact CompactOptions // the summarizer and zones of a compaction on the way

	Path   string
	To     string
	Full   bool
	Before int
	At     int
}

// NewCmdHandoff builds `ctxc handoff`.
func NewCmdHandoff(f *cmdutil.Factory, runF func(*HandoffOptions) error) *cobra.Command {
	opts := newHandoffOptions(f)
	c := &cobra.Command{
		Use:   "handoff --to AGENT [-o FILE] [--full] SESSION",
		Short: "Write a session as a new session of another agent, and print how to resume it",
		Long: `Write the effective context of SESSION (what ctxc load gives), or with --full its whole history
(every compaction undone), as a NEW session of AGENT (claude-code, codex, pi, gemini-cli, qwen-code or copilot), in the
folder where that agent finds its sessions for the project ($CLAUDE_CONFIG_DIR, $CODEX_HOME,
$PI_CODING_AGENT_DIR, $GEMINI_CLI_HOME, $QWEN_RUNTIME_DIR, $QWEN_HOME and $COPILOT_HOME are
honoured), or at -o FILE. The command that resumes it is printed on
standard output.

Messages keep their roles and order; tool calls and results take the target's own shapes under
fresh ids, a call of a shell, read, write, edit or search tool the target's own tool of that kind; images, reasoning and items the target has no shape for are left out and counted on
standard error. A conversation over the target's window (--window, default the agent's usual
model's) is compacted on the way with ctxc's compaction (extractive by default; the same --provider
flags as compact), never cut silently. SESSION is only read.`,
		Example: `  ctxc handoff --to codex ~/.claude/projects/-home-me-proj/SESSION.jsonl
  ctxc handoff --to pi --full -o moved.jsonl rollout.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runHandoff(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.To, "to", "", "the agent to hand the session to: claude-code, codex, pi, gemini-cli, qwen-code or copilot")
	c.Flags().BoolVar(&opts.Full, "full", false, "the whole history, every compaction undone, instead of the effective context")
	addHandoffFlags(c, opts)
	return c
}

// NewCmdFork builds `ctxc fork`.
func NewCmdFork(f *cmdutil.Factory, runF func(*HandoffOptions) error) *cobra.Command {
	opts := newHandoffOptions(f)
	c := &cobra.Command{
		Use:   "fork (--before-compaction N | --at LINE) [-o FILE] SESSION",
		Short: "Write a session as it stood before a compaction, as a new session of the same agent",
		Long: `Write the context SESSION's agent had before its compaction N (1 = the first, as ctxc expand
--marker numbers them: the agent's own compactions and ctxc's), or just after line LINE, as a NEW
session of the same agent (claude-code, codex, pi, gemini-cli, qwen-code or copilot), where the
agent finds it or at -o FILE,
and print the command that resumes it. A context over the window is compacted again by ctxc on
the way. SESSION is only read.`,
		Example: `  ctxc fork --before-compaction 1 ~/.pi/agent/sessions/--home-me-proj--/SESSION.jsonl`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runFork(c.Context(), opts)
		},
	}
	c.Flags().IntVar(&opts.Before, "before-compaction", 0, "the compaction to go back before (1 = the first)")
	c.Flags().IntVar(&opts.At, "at", 0, "the line to go back to (the context just after it)")
	cmdutil.IntRange(c.Flags(), "before-compaction", 1, cmdutil.MaxCount, "not given")
	cmdutil.IntRange(c.Flags(), "at", 1, cmdutil.MaxTokens, "not given")
	addHandoffFlags(c, opts)
	return c
}

func newHandoffOptions(f *cmdutil.Factory) *HandoffOptions {
	return &HandoffOptions{Compact: CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now, WaitNotice: f.WaitNotice,
		Tiers: "80,85,95", Target: compact.DefaultTarget, KeepHead: 1, KeepTail: compact.DefaultKeepTail, Parallel: 1}}
}

// addHandoffFlags adds -o, --window, --now and the summarizer's flags.
func addHandoffFlags(c *cobra.Command, opts *HandoffOptions) {
	fl := c.Flags()
	fl.StringVarP(&opts.Compact.Output, "output", "o", "", "write the new session here instead of the agent's sessions folder")
	fl.IntVar(&opts.Compact.Window, "window", 0, "the target agent's context window in tokens (default: claude-code 200000, codex 272000, pi 128000, gemini-cli 1048576, qwen-code 262144, copilot 128000)")
	fl.StringVar(&opts.Compact.NowFlag, "now", "", "timestamp written in the new session (RFC 3339; also SOURCE_DATE_EPOCH)")
	cmdutil.IntRange(fl, "window", cmdutil.MinWindow, cmdutil.MaxTokens, "the agent's")
	addProviderFlags(c, &opts.Compact)
	cmdutil.AddInstructionsFlags(c, &opts.Compact.Instructions, &opts.Compact.NoInstructions)
	// A compaction on the way is extractive unless a model is asked for: handing a session
	// over needs no model.
	opts.Compact.Provider = "extractive"
	fl.Lookup("provider").DefValue = "extractive"
}

func runHandoff(ctx context.Context, opts *HandoffOptions) error {
	if opts.To == "" {
		return &cmdutil.UsageError{Err: errors.New("--to AGENT is required (claude-code, codex, pi, gemini-cli, qwen-code or copilot)")}
	}
	to, err := handoff.ParseTarget(opts.To)
	if err != nil {
		return err
	}
	ho, err := handoffOptions(opts)
	if err != nil {
		return err
	}
	ho.To, ho.Full = to, opts.Full
	res, err := handoff.Session(ctx, opts.Path, ho)
	if err != nil {
		return err
	}
	return printHandoff(opts, res)
}

func runFork(ctx context.Context, opts *HandoffOptions) error {
	if (opts.Before > 0) == (opts.At > 0) {
		return &cmdutil.UsageError{Err: errors.New("give one of --before-compaction N and --at LINE")}
	}
	ho, err := handoffOptions(opts)
	if err != nil {
		return err
	}
	res, err := handoff.Fork(ctx, opts.Path, handoff.Point{Before: opts.Before, At: opts.At}, ho)
	if err != nil {
		return err
	}
	return printHandoff(opts, res)
}

// handoffOptions are the settings of the flags: where, when, and how to compact on the way.
func handoffOptions(opts *HandoffOptions) (handoff.Options, error) {
	co, err := compactOptions(&opts.Compact)
	if err != nil {
		return handoff.Options{}, err
	}
	now, err := opts.Compact.now()
	if err != nil {
		return handoff.Options{}, err
	}
	home := opts.Compact.Getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return handoff.Options{}, err
		}
	}
	instr, err := cmdutil.NewInstructionSource(opts.Compact.Instructions, opts.Compact.NoInstructions, co.Format)
	if err != nil {
		return handoff.Options{}, err
	}
	if !opts.Compact.Global.Quiet {
		instr.Say = func(s string) { fmt.Fprintln(opts.Compact.IO.ErrOut, s) }
	}
	return handoff.Options{Output: opts.Compact.Output, Window: opts.Compact.Window, Now: now, Getenv: opts.Compact.Getenv,
		Home: home, Format: co.Format, Compact: co,
		Summarizer: func(ctx context.Context, co *compact.Options) error {
			return compactOnTheWay(ctx, opts, instr, co)
		}}, nil
}

// compactOnTheWay puts the summarizer and the instructions of the session's project into the
// options of a compaction on the way.
func compactOnTheWay(ctx context.Context, opts *HandoffOptions, instr *cmdutil.InstructionSource, co *compact.Options) error {
	text, err := instr.For(opts.Path)
	if err != nil {
		return err
	}
	co.Instructions = text
	return useProvider(ctx, &opts.Compact, co)
}

// printHandoff says what was written (stderr) and prints the resume command (stdout).
func printHandoff(opts *HandoffOptions, res *handoff.Result) error {
	ios, g := opts.Compact.IO, opts.Compact.Global
	if !g.Quiet {
		if res.Dropped.Any() {
			fmt.Fprintf(ios.ErrOut, "note: left out what the target cannot take: %s\n", res.Dropped)
		}
		if c := res.Compacted; c != nil {
			fmt.Fprintf(ios.ErrOut, "note: over the target's window: compacted on the way (%d → %d tokens, %s)\n", c.TokensBefore, c.TokensAfter, c.Provider)
		}
		fmt.Fprintf(ios.ErrOut, "wrote %s (session %s, %d messages)\n", res.Path, res.Session, res.Messages)
	}
	if g.JSON {
		return json.NewEncoder(ios.Out).Encode(map[string]any{"type": "session", "path": res.Path, "session": res.Session, "resume": res.Resume,
			"messages": res.Messages, "dropped": res.Dropped, "compacted": res.Compacted != nil})
	}
	_, err := fmt.Fprintln(ios.Out, res.Resume)
	return err
}

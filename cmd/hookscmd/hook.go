package hookscmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/guard"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// HookOptions are the inputs of `ctxc hook AGENT`.
type HookOptions struct {
	IO      *iostreams.IOStreams
	Getenv  func(string) string
	Now     func() time.Time
	Agent   string
	Budget  int
	Timeout time.Duration
	Memory  string
	// Instructions and NoInstructions replace the project's Compact Instructions section.
	Instructions   string
	NoInstructions bool
}

// NewCmdHook builds `ctxc hook`, the command an agent runs (installed by `ctxc hooks install`).
func NewCmdHook(f *cmdutil.Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{IO: f.IO, Getenv: f.Getenv, Now: f.Now}
	c := &cobra.Command{
		Use:   "hook claude-code|codex|opencode|kilo|cline",
		Short: "Run as an agent's hook at its compaction (installed by ctxc hooks install)",
		Long: `The command an agent runs inside its own compaction; ctxc hooks install sets it up. It reads the
hook's JSON input on stdin.

On SessionStart with source "compact", ctxc reads the session file and returns, as the hook's
additionalContext, facts of the fact ledger (user rules, the last request, files modified, URLs
and ids, earlier requests, unresolved errors, files read) verbatim, by priority within --budget
tokens. The agent puts that note after its summary and sends it with the next request.
  claude-code: Claude Code runs the hook before it writes its summary, so the note carries the
               whole ledger of the conversation being compacted.
  codex:       Codex runs it after it wrote its compacted record: the note carries the facts
               of the context before the compaction that its summary lost.
  opencode:    ctxc's plugin (ctxc hooks install opencode) sends PreCompact before opencode
               summarizes, answered with the whole ledger for its summarizer, then
               SessionStart(compact) once the summary is written, answered with what it lost.
  kilo:        the same, through the same plugin (ctxc hooks install kilo).
  cline:       Cline runs it after each tool call (a PostToolUse hook file): at the first tool
               call after Cline compacted the session, ctxc answers once, with
               {"contextModification": NOTE} of the facts before the compaction that the
               compacted context lacks; Cline adds it after the tool's result and stores it.
The terms that the "Compact Instructions" section of the project's CLAUDE.md or AGENTS.md (in the
hook input's cwd) names and the conversation holds are facts of the note too (--instructions TEXT
or @FILE in its place; --no-instructions for none). Other events do nothing.

With --memory FILE, ctxc first merges the memory of the session (ctxc memory) into FILE's ctxc
section; a relative FILE is taken from the session's folder (the hook input's cwd). Claude Code
runs the hook before it writes its compaction.

A hook never breaks its agent: on any failure it prints nothing and exits 0, and says what
happened in one line of $XDG_STATE_HOME/ctxc/hooks.log (~/.local/state/ctxc/hooks.log).`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: guard.Agents(),
		// The hook reads no configuration: a broken config file must not break the agent. Its
		// flags, written by ctxc hooks install, are checked as every command's are.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error { return cmdutil.CheckRanges(c.Flags(), nil) },
		RunE: func(c *cobra.Command, args []string) error {
			opts.Agent = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runHook(c.Context(), opts)
		},
	}
	c.Flags().IntVar(&opts.Budget, "budget", guard.DefaultBudget, "tokens of the note at most")
	c.Flags().DurationVar(&opts.Timeout, "timeout", guard.DefaultTimeout, "give up (print nothing) after this long")
	cmdutil.IntRange(c.Flags(), "budget", 1, cmdutil.MaxTokens, "")
	cmdutil.DurationRange(c.Flags(), "timeout", time.Millisecond, 24*time.Hour, "")
	c.Flags().StringVar(&opts.Memory, "memory", "", "merge the session's memory into this file first (relative: from the session's folder)")
	cmdutil.AddInstructionsFlags(c, &opts.Instructions, &opts.NoInstructions)
	return c
}

func runHook(ctx context.Context, opts *HookOptions) error {
	o := guard.Options{Budget: opts.Budget, Timeout: opts.Timeout, Memory: opts.Memory,
		Getenv: opts.Getenv, StateDir: guard.StateDir(opts.Getenv)}
	if opts.Instructions != "" || opts.NoInstructions {
		text, err := hookInstructions(opts)
		if err != nil {
			// A hook never breaks its agent: the failure is logged, nothing printed.
			guard.Log(guard.LogPath(opts.Getenv), opts.Now(), guard.Outcome{Agent: opts.Agent, Action: "error", Detail: err.Error()})
			return nil
		}
		o.Instructions = &text
	}
	stdout, out, ok := guard.Run(ctx, opts.Agent, opts.IO.In, o)
	if !ok {
		return &cmdutil.UsageError{Err: fmt.Errorf("unknown agent %q: ctxc hook takes %s", opts.Agent, strings.Join(guard.Agents(), " or "))}
	}
	guard.Log(guard.LogPath(opts.Getenv), opts.Now(), out)
	if len(stdout) > 0 {
		opts.IO.Out.Write(stdout)
	}
	return nil
}

// hookInstructions are the instructions of the flags (@FILE read now; none with --no-instructions).
func hookInstructions(opts *HookOptions) (string, error) {
	instr, err := cmdutil.NewInstructionSource(opts.Instructions, opts.NoInstructions, transcript.FormatUnknown)
	if err != nil {
		return "", err
	}
	return instr.Here()
}

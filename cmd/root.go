// Package cmd is ctxc's command line: flags → an options struct → a run function, and the
// output of each command. What every command shares (the Factory, typed errors and their exit
// codes, path arguments) is internal/cmdutil, the streams internal/iostreams; the work itself is
// in the packages under internal/ (docs/architecture.md).
package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ctxc/ctxc/cmd/archivecmd"
	"github.com/ctxc/ctxc/cmd/exportcmd"
	"github.com/ctxc/ctxc/cmd/hookscmd"
	"github.com/ctxc/ctxc/cmd/reportcmd"
	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Main runs ctxc with the process's arguments and returns the exit code.
func Main(build cmdutil.BuildInfo) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := cmdutil.ExitOnInterrupt(cancel, cmdutil.InterruptGrace, os.Stderr, os.Exit)
	defer stop()
	ios := iostreams.System()
	ios.In = cmdutil.NewInput(ctx, ios.In)
	f := &cmdutil.Factory{IO: ios, Getenv: os.Getenv, Now: time.Now, Build: build.Resolve()}
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line and returns its exit code; errors are printed to stderr (as a
// JSON object with --json).
func Run(ctx context.Context, f *cmdutil.Factory, args []string) int {
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := walkedExit(root.ExecuteContext(ctx), f.IO)
	var ee *cmdutil.ExitError
	if ctx.Err() != nil && !(errors.As(err, &ee) && ee.Code == cmdutil.ExitInterrupted) {
		// Whatever the interrupted work came back with (a read cut short, or nothing when the
		// signal came as it ended), the shell hears of the interrupt.
		err = &cmdutil.ExitError{Code: cmdutil.ExitInterrupted, Err: cmdutil.ErrInterrupted}
	}
	code := cmdutil.ExitCode(err)
	if err != nil {
		if errors.As(err, &ee) && ee.Silent {
			return code
		}
		if f.Global.JSON {
			b, _ := json.Marshal(map[string]any{"type": "exit_error", "code": code, "message": err.Error()})
			fmt.Fprintln(f.IO.ErrOut, string(b))
		} else {
			fmt.Fprintln(f.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
			var ue *cmdutil.UsageError
			if errors.As(err, &ue) {
				fmt.Fprintln(f.IO.ErrOut, "Run 'ctxc --help' for usage.")
			}
		}
	}
	return code
}

// walkedExit is a command's result once the folders it could not read below its arguments
// are counted: a success, or grep's "nothing matched", is a partial run (3), since files were
// left unread; the folders were said when met.
func walkedExit(err error, ios *iostreams.IOStreams) error {
	n := ios.WalksFailed()
	if n == 0 || err != nil && !noMatch(err) {
		return err
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitPartial, Err: fmt.Errorf("%d folder(s) could not be read; the files found elsewhere were done", n)}
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "ctxc",
		Short: "Compact and inspect LLM-agent session transcripts",
		Long: `ctxc reads the JSONL session transcripts of LLM agents (Claude Code, Codex, pi/OpenClaw,
OpenAI or Anthropic message lists, ctxc/crabtalk files), tells how big their context is, prints the
effective context an agent would reload, and compacts long sessions by summarizing the middle of
the conversation while keeping its start and its end verbatim. It never rewrites history: a
compaction appends to the file (or writes a new file with -o).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       f.Build.Version,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if c.Annotations[noSettings] != "" {
				return nil
			}
			addConfigKeys(c.Root())
			res, err := config.Apply(c.Flags(), f.Global.ConfigFile, f.Getenv)
			if err != nil {
				return err
			}
			if err := cmdutil.CheckRanges(c.Flags(), res); err != nil {
				return err
			}
			f.Resolved = res
			if f.Global.JSON {
				f.Global.Quiet = true
			}
			return nil
		},
	}
	root.SetVersionTemplate("ctxc {{.Version}}\n")
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &cmdutil.UsageError{Err: err} })

	pf := root.PersistentFlags()
	pf.StringVar(&f.Global.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/ctxc/config.yaml)")
	pf.BoolVar(&f.Global.JSON, "json", false, "machine output: one JSON object per line on stdout")
	pf.BoolVarP(&f.Global.Quiet, "quiet", "q", false, "print errors only")
	pf.CountVarP(&f.Global.Verbose, "verbose", "v", "say more (repeat for more)")
	pf.StringVar(&f.Global.Format, "format", "auto", "input format: "+strings.Join(formatNames(), ", "))
	root.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formatNames(), cobra.ShellCompDirectiveNoFileComp
	})
	pf.BoolVar(&f.Global.Strict, "strict", false, "treat a line that is not valid JSON as an error (exit 65)")

	root.AddCommand(
		// Reading
		NewCmdStats(f, nil),
		NewCmdLoad(f, nil),
		// Compaction
		NewCmdCompact(f, nil),
		NewCmdSummarize(f, nil),
		NewCmdAudit(f, nil),
		reportcmd.NewCmdReport(f, nil),
		NewCmdEval(f, nil),
		NewCmdHandoff(f, nil),
		NewCmdFork(f, nil),
		// Recall
		NewCmdGrep(f, nil),
		NewCmdExpand(f, nil),
		NewCmdIndex(f, nil),
		NewCmdSearch(f, nil),
		NewCmdMCP(f, nil),
		archivecmd.NewCmdArchive(f, nil),
		exportcmd.NewCmdExport(f, nil),
		// Structure
		NewCmdLint(f, nil),
		NewCmdRepair(f, nil),
		// Memory and the agents
		NewCmdMemory(f, nil),
		hookscmd.NewCmdHooks(f, nil),
		hookscmd.NewCmdHook(f, nil),
		// Setup
		NewCmdConfig(f),
		NewCmdMan(f),
		NewCmdVersion(f),
	)
	argsAreUsage(root)
	return root
}

// argsAreUsage makes a wrong count or kind of arguments a usage error (exit 2), as a wrong flag
// is, for every command below c: cobra's validators return plain errors.
func argsAreUsage(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &cmdutil.UsageError{Err: err}
			}
			return nil
		}
	}
	for _, s := range c.Commands() {
		argsAreUsage(s)
	}
}

// addConfigKeys records every flag of every command as a valid config-file key, whichever
// command reads the file. It runs before a command reads its settings, not when the tree is
// built: --help and --version never read them.
func addConfigKeys(c *cobra.Command) {
	c.Flags().VisitAll(func(fl *pflag.Flag) { config.AddKnown(fl.Name) })
	c.PersistentFlags().VisitAll(func(fl *pflag.Flag) { config.AddKnown(fl.Name) })
	for _, s := range c.Commands() {
		addConfigKeys(s)
	}
}

// noSettings is the annotation of a command that reads no settings: neither the config file
// nor the environment can break it (ctxc version answers whatever the config file holds).
const noSettings = "ctxc:no-settings"

// NewCmdVersion prints the version.
func NewCmdVersion(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Short:       "Print the version",
		Args:        cobra.NoArgs,
		Annotations: map[string]string{noSettings: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			b := f.Build
			if f.Global.JSON {
				return json.NewEncoder(f.IO.Out).Encode(map[string]string{"version": b.Version, "commit": b.Commit, "date": b.Date})
			}
			fmt.Fprintf(f.IO.Out, "ctxc %s", b.Version)
			if b.Commit != "" {
				fmt.Fprintf(f.IO.Out, " (%s", b.Commit)
				if b.Date != "" {
					fmt.Fprintf(f.IO.Out, ", %s", b.Date)
				}
				fmt.Fprint(f.IO.Out, ")")
			}
			fmt.Fprintln(f.IO.Out)
			return nil
		},
	}
}

// formatNames are the values --format takes: auto (detect), then the registry's formats.
func formatNames() []string {
	return append([]string{"auto"}, agent.Names()...)
}

// Package cmd is ctxc's command line: flags → an options struct → a run function. It formats
// output and maps errors to exit codes; the work itself is in the packages under internal/
// (docs/architecture.md).
package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// BuildInfo is stamped by the release build.
type BuildInfo struct{ Version, Commit, Date string }

// resolve fills missing fields from the Go build information (go install, go build).
func (b BuildInfo) resolve() BuildInfo {
	if b.Version != "" {
		return b
	}
	b.Version = "dev"
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			}
		}
	}
	return b
}

// Factory holds what every command needs from the outside world; tests replace its parts.
type Factory struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Build  BuildInfo
	// Executable returns the running ctxc's path (nil: os.Executable through symbolic links).
	Executable func() (string, error)
	// WaitNotice is how long a summarizer may take before ctxc says it has not answered yet
	// (0: 30 s; tests shorten it).
	WaitNotice time.Duration

	Global   GlobalOptions
	Resolved *config.Resolved // effective settings of the running command
}

// GlobalOptions are the root's persistent flags.
type GlobalOptions struct {
	ConfigFile string
	JSON       bool
	Quiet      bool
	Verbose    int
	Format     string
	Strict     bool
}

// Bars reports whether progress may be drawn on a terminal: neither --json nor -q.
func (g *GlobalOptions) Bars() bool { return !g.JSON && !g.Quiet }

// Main runs ctxc with the process's arguments and returns the exit code.
func Main(build BuildInfo) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := exitOnInterrupt(cancel, interruptGrace, os.Stderr, os.Exit)
	defer stop()
	ios := iostreams.System()
	ios.In = newInput(ctx, ios.In)
	f := &Factory{IO: ios, Getenv: os.Getenv, Now: time.Now, Build: build.resolve()}
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line and returns its exit code; errors are printed to stderr (as a
// JSON object with --json).
func Run(ctx context.Context, f *Factory, args []string) int {
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := walkedExit(root.ExecuteContext(ctx), f.IO)
	var ee *ExitError
	if ctx.Err() != nil && !(errors.As(err, &ee) && ee.Code == ExitInterrupted) {
		// Whatever the interrupted work came back with (a read cut short, or nothing when the
		// signal came as it ended), the shell hears of the interrupt.
		err = &ExitError{Code: ExitInterrupted, Err: errInterrupted}
	}
	code := exitCode(err)
	if err != nil {
		if errors.As(err, &ee) && ee.Silent {
			return code
		}
		if f.Global.JSON {
			b, _ := json.Marshal(map[string]any{"type": "exit_error", "code": code, "message": err.Error()})
			fmt.Fprintln(f.IO.ErrOut, string(b))
		} else {
			fmt.Fprintln(f.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
			var ue *UsageError
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
	return &ExitError{Code: ExitPartial, Err: fmt.Errorf("%d folder(s) could not be read; the files found elsewhere were done", n)}
}

// NewRootCmd builds the command tree.
func NewRootCmd(f *Factory) *cobra.Command {
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
			if err := checkRanges(c.Flags(), res); err != nil {
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })

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
		NewCmdReport(f, nil),
		NewCmdEval(f, nil),
		NewCmdHandoff(f, nil),
		NewCmdFork(f, nil),
		// Recall
		NewCmdGrep(f, nil),
		NewCmdExpand(f, nil),
		NewCmdIndex(f, nil),
		NewCmdSearch(f, nil),
		NewCmdMCP(f, nil),
		NewCmdArchive(f, nil),
		NewCmdExport(f, nil),
		// Structure
		NewCmdLint(f, nil),
		NewCmdRepair(f, nil),
		// Memory and the agents
		NewCmdMemory(f, nil),
		NewCmdHooks(f, nil),
		NewCmdHook(f, nil),
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
				return &UsageError{err}
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
func NewCmdVersion(f *Factory) *cobra.Command {
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

// Package hookscmd is `ctxc hooks` (install, uninstall and status of ctxc inside each agent's
// own compaction) and `ctxc hook`, which the agents run: it answers each agent's event, and
// never breaks the agent.
package hookscmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/hooks"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/spf13/cobra"
)

// HooksOptions are the inputs of `ctxc hooks install|uninstall|status`.
type HooksOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions
	Getenv func(string) string
	// Executable is the ctxc the hooks run (os.Executable through symbolic links).
	Executable func() (string, error)

	Action   string // install, uninstall, status
	Agents   []string
	Settings string
	Dir      string
	Budget   int
	Memory   string
	DryRun   bool
}

// NewCmdHooks builds `ctxc hooks` and its subcommands. runF replaces the run function in tests.
func NewCmdHooks(f *cmdutil.Factory, runF func(*HooksOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks",
		Short: "Install, remove or show ctxc's hooks in the agents' own compaction",
		Long: `Install ctxc inside an agent's own compaction, remove it, or show whether it is there.

claude-code  a SessionStart hook with matcher "compact" in ~/.claude/settings.json (or --settings
             FILE, e.g. a project's .claude/settings.json): 'ctxc hook claude-code' runs right
             after each compaction and its output is added to the next request.
codex        the same hook in $CODEX_HOME/hooks.json (default ~/.codex, or --dir DIR), and the
             trust entry Codex requires for it in config.toml.
pi           the extension ctxc-compact.ts in ~/.pi/agent/extensions/ (or --dir DIR).
opencode     the plugin ctxc-compact.ts in $XDG_CONFIG_HOME/opencode/plugin/ (default
             ~/.config/opencode/plugin/, or --dir DIR): ctxc's ledger goes to opencode's
             summarizer, and what its summary lost comes back as a message after it.
kilo         the same plugin in $XDG_CONFIG_HOME/kilo/plugin/ (default ~/.config/kilo/plugin/).
cline        the hook file PostToolUse.bash in ~/.cline/hooks/ (or --dir DIR): Cline runs it after
             each tool call; at the first one after Cline compacted the session, 'ctxc hook
             cline' answers with the facts the compaction lost, added to the next request.

Everything else in those files is kept as it was; a file is copied to FILE.ctxc-backup before
each change. See docs/integrations.md.`,
		Args: cobra.NoArgs,
	}
	c.AddCommand(
		newCmdHooksAction(f, runF, "install", "Install ctxc's hook for an agent"),
		newCmdHooksAction(f, runF, "uninstall", "Remove ctxc's hook (only what ctxc added)"),
		newCmdHooksAction(f, runF, "status", "Show whether ctxc's hooks are installed"),
	)
	return c
}

func newCmdHooksAction(f *cmdutil.Factory, runF func(*HooksOptions) error, action, short string) *cobra.Command {
	opts := &HooksOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Executable: f.Executable, Action: action}
	use, args := action+" AGENT", cobra.ExactArgs(1)
	if action == "status" {
		use, args = "status [AGENT]", cobra.MaximumNArgs(1)
	}
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args: func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return &cmdutil.UsageError{Err: err}
			}
			return nil
		},
		ValidArgs: hooks.Names(),
		Example: map[string]string{
			"install":   "  ctxc hooks install claude-code\n  ctxc hooks install claude-code --settings .claude/settings.json --budget 2000\n  ctxc hooks install claude-code --memory CLAUDE.md\n  ctxc hooks install codex --dry-run\n  ctxc hooks install cline --budget 2000",
			"uninstall": "  ctxc hooks uninstall claude-code\n  ctxc hooks uninstall pi\n  ctxc hooks uninstall opencode",
			"status":    "  ctxc hooks status\n  ctxc --json hooks status codex",
		}[action],
		RunE: func(c *cobra.Command, a []string) error {
			opts.Agents = a
			if runF != nil {
				return runF(opts)
			}
			return runHooks(opts)
		},
	}
	c.Flags().StringVar(&opts.Settings, "settings", "", "claude-code: the settings file (default ~/.claude/settings.json)")
	c.Flags().StringVar(&opts.Dir, "dir", "", "codex: CODEX_HOME (default $CODEX_HOME or ~/.codex); pi: the extensions directory (default ~/.pi/agent/extensions); opencode, kilo: the plugin directory (default ~/.config/opencode/plugin, ~/.config/kilo/plugin); cline: its hooks folder (default ~/.cline/hooks)")
	if action == "install" {
		c.Flags().IntVar(&opts.Budget, "budget", 0, "token budget the hook passes to ctxc (0: ctxc's default)")
		cmdutil.IntRange(c.Flags(), "budget", 1, cmdutil.MaxTokens, "ctxc's default")
		c.Flags().StringVar(&opts.Memory, "memory", "", "before each compaction, merge the session's memory into this file (ctxc memory --update); relative: from the session's folder")
	}
	if action != "status" {
		c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the new content and write nothing")
	}
	return c
}

func runHooks(opts *HooksOptions) error {
	agents, err := hooksAgents(opts.Agents)
	if err != nil {
		return err
	}
	base, err := hooksBaseOptions(opts)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	var failed error
	for _, a := range agents {
		o, err := hooksAgentOptions(opts, base, a)
		if err != nil {
			return err
		}
		err = runHooksAgent(opts, enc, a, o)
		if err != nil && len(agents) == 1 {
			return err
		}
		if err != nil {
			// Status of every agent: one agent's unreadable file does not hide the others.
			fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
			failed = &cmdutil.ExitError{Code: cmdutil.ExitCode(err), Err: err, Silent: true}
		}
	}
	return failed
}

// hooksAgents resolves the agent argument; status without one means every agent.
func hooksAgents(names []string) ([]hooks.Agent, error) {
	if len(names) == 0 {
		return hooks.All(), nil
	}
	a, err := hooks.For(names[0])
	if err != nil {
		return nil, &cmdutil.UsageError{Err: err}
	}
	return []hooks.Agent{a}, nil
}

// hooksBaseOptions are the options common to every agent: home, executable, arguments.
func hooksBaseOptions(opts *HooksOptions) (hooks.Options, error) {
	o := hooks.Options{DryRun: opts.DryRun, Home: opts.Getenv("HOME"), ConfigHome: opts.Getenv("XDG_CONFIG_HOME")}
	if o.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return o, err
		}
		o.Home = h
	}
	exe := opts.Executable
	if exe == nil {
		exe = resolvedExecutable
	}
	path, err := exe()
	if err != nil {
		return o, fmt.Errorf("finding the ctxc executable: %w", err)
	}
	o.Ctxc = path
	if opts.Budget < 0 {
		return o, &cmdutil.UsageError{Err: fmt.Errorf("--budget must be positive")}
	}
	if opts.Budget > 0 {
		o.Args = []string{"--budget", strconv.Itoa(opts.Budget)}
	}
	o.Memory = opts.Memory
	return o, nil
}

// resolvedExecutable is the running ctxc, through symbolic links.
func resolvedExecutable() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// hooksAgentOptions sets the agent's path from --settings, --dir or the environment variable
// that moves its folder.
func hooksAgentOptions(opts *HooksOptions, o hooks.Options, a hooks.Agent) (hooks.Options, error) {
	place := a.Place()
	switch {
	case opts.Settings != "" && !place.Settings:
		return o, &cmdutil.UsageError{Err: fmt.Errorf("--settings is for %s; use --dir for %s", strings.Join(hooks.PlaceNames(true), " and "), a.Name())}
	case opts.Dir != "" && place.Settings:
		return o, &cmdutil.UsageError{Err: fmt.Errorf("--dir is for %s; use --settings FILE for %s", strings.Join(hooks.PlaceNames(false), " and "), a.Name())}
	case opts.Settings != "":
		o.Path = opts.Settings
	case opts.Dir != "":
		o.Path = opts.Dir
	case place.Env != "":
		o.Path = opts.Getenv(place.Env)
	}
	if o.Path != "" {
		abs, err := filepath.Abs(o.Path)
		if err != nil {
			return o, err
		}
		o.Path = abs
	}
	return o, nil
}

// runHooksAgent runs the action for one agent and prints its line.
func runHooksAgent(opts *HooksOptions, enc *json.Encoder, a hooks.Agent, o hooks.Options) error {
	home := o.Home
	switch opts.Action {
	case "status":
		st, err := a.Status(o)
		if err != nil {
			return err
		}
		if opts.Global.JSON {
			return enc.Encode(st)
		}
		printHooksState(opts.IO.Out, st, home)
		return nil
	default:
		var ch hooks.Change
		var err error
		if opts.Action == "install" {
			ch, err = a.Install(o)
		} else {
			ch, err = a.Uninstall(o)
		}
		if err != nil {
			return err
		}
		if opts.Global.JSON {
			return enc.Encode(ch)
		}
		printHooksChange(opts, ch, home)
		return nil
	}
}

func printHooksChange(opts *HooksOptions, ch hooks.Change, home string) {
	what := "ctxc's hook"
	if a, err := hooks.For(ch.Agent); err == nil {
		what = a.Place().What
	}
	path := tildePath(ch.Path, home)
	var line string
	switch {
	case !ch.Changed && opts.Action == "install":
		line = fmt.Sprintf("%s is already installed in %s", what, path)
	case !ch.Changed:
		line = fmt.Sprintf("%s is not installed in %s", what, path)
	case opts.Action == "install":
		line = fmt.Sprintf("installed %s in %s", what, path)
	default:
		line = fmt.Sprintf("removed %s from %s", what, path)
	}
	if opts.DryRun && ch.Changed {
		line = "dry run, nothing written: would have " + line
	}
	if ch.Backup != "" {
		line += " (backup: " + tildePath(ch.Backup, home) + ")"
	}
	if ch.Note != "" && ch.Changed {
		line += "; " + tildePath(ch.Note, home)
	}
	if opts.DryRun {
		if ch.Preview != "" {
			fmt.Fprint(opts.IO.Out, ch.Preview)
			if !strings.HasSuffix(ch.Preview, "\n") {
				fmt.Fprintln(opts.IO.Out)
			}
		}
		fmt.Fprintln(opts.IO.ErrOut, line)
		return
	}
	if !opts.Global.Quiet || ch.Changed {
		fmt.Fprintln(opts.IO.Out, line)
	}
}

func printHooksState(w io.Writer, st hooks.State, home string) {
	path := tildePath(st.Path, home)
	if st.Installed {
		fmt.Fprintf(w, "%s: installed in %s: %s", st.Agent, path, st.Command)
	} else {
		fmt.Fprintf(w, "%s: not installed (%s)", st.Agent, path)
	}
	if st.Note != "" {
		fmt.Fprintf(w, " (%s)", tildePath(st.Note, home))
	}
	fmt.Fprintln(w)
}

// tildePath writes paths under the home with ~, for people.
func tildePath(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	return strings.ReplaceAll(s, strings.TrimSuffix(home, "/")+"/", "~/")
}

package cmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/index"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// SearchOptions are the inputs of `ctxc search`.
type SearchOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions
	Now    func() time.Time

	Query    string
	Paths    []string
	DB       string
	Agent    string
	Project  string
	Since    string
	Until    string
	Roles    []string
	Limit    int
	NoUpdate bool
}

// NewCmdSearch builds `ctxc search`.
func NewCmdSearch(f *cmdutil.Factory, runF func(*SearchOptions) error) *cobra.Command {
	opts := &SearchOptions{IO: f.IO, Global: &f.Global, Now: f.Now}
	c := &cobra.Command{
		Use:   "search QUERY [PATH...]",
		Short: "Find the messages of every session that best match some words",
		Long: `Rank the messages of every session by how well they match the words of QUERY (BM25: rare
words weigh more, a word repeated in a short message more than in a long one), best first, with
the session, its agent, its project folder, the time, the role, a snippet, and the command that
resumes the session in its agent.

The search reads the index (ctxc index). Before it searches, it brings the index up to date
with PATH (files, folders, globs; by default the agents' own session folders that exist:
~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions, ~/.copilot/session-state,
~/.factory/sessions, ~/.gemini/tmp, ~/.qwen/projects, ~/.openclaw/agents, opencode's
$XDG_DATA_HOME/opencode/opencode.db and Kilo's $XDG_DATA_HOME/kilo/kilo.db), reading only what changed, with a progress bar on a terminal; --no-update searches the index as it is. With PATH, only the
sessions under PATH are searched.

Words are letters and digits, compared ignoring case; common words (the, and, of...) are left
out. Filters: --agent (a format name: claude-code, codex, pi...), --project (a part of the
project folder), --since/--until (2026-11-20, an RFC 3339 time, or an age such as 7d or 12h),
--role (user, assistant, tool, system, summary; repeatable). --json prints one JSON object per
result. Exit status 1 when nothing matches.`,
		Example: `  ctxc search 'reconnect bug'
  ctxc search --agent codex --since 7d 'migration plan'
  ctxc search --json --role user 'flaky test' ~/archive | jq -r .resume`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Query, opts.Paths = args[0], args[1:]
			if runF != nil {
				return runF(opts)
			}
			return runSearch(opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.DB, "db", "", "index folder (default $XDG_CACHE_HOME/ctxc/index)")
	fl.StringVar(&opts.Agent, "agent", "", "only sessions of this agent (format name)")
	fl.StringVar(&opts.Project, "project", "", "only sessions whose project folder contains this")
	fl.StringVar(&opts.Since, "since", "", "only messages at or after this time (2026-11-20, RFC 3339, or an age: 7d, 12h)")
	fl.StringVar(&opts.Until, "until", "", "only messages before this time")
	fl.StringSliceVar(&opts.Roles, "role", nil, "only messages of this role (repeatable)")
	fl.IntVarP(&opts.Limit, "limit", "n", 10, "results to show")
	cmdutil.IntRange(fl, "limit", 1, cmdutil.MaxCount, "")
	fl.BoolVar(&opts.NoUpdate, "no-update", false, "search the index as it is, without bringing it up to date")
	return c
}

func runSearch(opts *SearchOptions) error {
	// A search allocates little that lives: fewer collections (the default collects several
	// times while the manifest is read) answer sooner.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	q, err := opts.query()
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	dir, err := indexPath(opts.DB)
	if err != nil {
		return err
	}
	var files []string
	if !opts.NoUpdate || len(opts.Paths) > 0 {
		var roots []string
		walker := index.NewWalker(dir)
		if roots, files, err = opts.sessions(walker); err != nil {
			return err
		}
		if !opts.NoUpdate {
			if _, err := updateIndex(opts.IO, opts.Global, dir, files, roots, walker, transcript.FormatUnknown); err != nil {
				return err
			}
		}
	}
	r, err := index.Open(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if len(opts.Paths) > 0 {
		q.Paths = absPaths(files)
	}
	results := r.Search(q)
	r.Complete(results, q.Text)
	if err := printResults(opts, results); err != nil {
		return err
	}
	if len(results) == 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Silent: true}
	}
	return nil
}

// query turns the flags into an index query.
func (opts *SearchOptions) query() (index.Query, error) {
	q := index.Query{Text: opts.Query, Agent: opts.Agent, Project: opts.Project, Limit: opts.Limit}
	if q.Agent != "" {
		if _, err := transcript.ParseFormat(q.Agent); err != nil {
			return q, fmt.Errorf("--agent: %w", err)
		}
	}
	var err error
	if q.Since, err = parseWhen(opts.Since, opts.Now()); err != nil {
		return q, fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(opts.Until, opts.Now()); err != nil {
		return q, fmt.Errorf("--until: %w", err)
	}
	if q.Roles, err = grep.ParseRoles(opts.Roles); err != nil {
		return q, err
	}
	if opts.Limit < 1 {
		return q, errors.New("--limit must be at least 1")
	}
	return q, nil
}

// ageUnits are the units of an age (7d, 12h).
var ageUnits = map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}

// parseAge reads an age: digits, then a unit of ageUnits.
func parseAge(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	unit, ok := ageUnits[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if !ok || err != nil || n < 0 || strings.ContainsAny(s[:1], "+-") {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// parseWhen reads a time: a date, an RFC 3339 time, or an age before now ("" is none).
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if age, ok := parseAge(s); ok {
		return now.Add(-age), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-11-20), an RFC 3339 time, or an age (7d, 12h)", s)
}

// sessions lists the roots to search and their session files: PATH, or the agents' folders.
func (opts *SearchOptions) sessions(walker *index.Walker) (roots, files []string, err error) {
	roots = opts.Paths
	say := opts.IO.ErrOut
	if len(roots) == 0 {
		roots = agentSessionDirs()
		if len(roots) == 0 {
			return nil, nil, &cmdutil.UsageError{Err: errors.New("no agent session folder found here: give the PATH of your sessions")}
		}
		// The agents' folders are looked in because they might hold sessions: one that is empty
		// (an agent installed and never used) is no news.
		say = io.Discard
	} else if roots, err = mirroredRoots(roots); err != nil {
		return nil, nil, err
	} else if err := namedPathsExist(roots); err != nil {
		return nil, nil, err
	}
	files, err = cmdutil.ExpandWith(roots, opts.IO, say, true, walker.WalkDir)
	return roots, files, err
}

// mirroredRoots gives each s3://BUCKET/PREFIX among paths as its local mirror, brought up to
// date, which the index then lists and reads as a folder of archived sessions.
func mirroredRoots(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if objstore.IsURL(p) {
			dir, err := cmdutil.MirrorBucket(p)
			if err != nil {
				return nil, err
			}
			out[i] = dir
		}
	}
	return out, nil
}

// namedPathsExist checks that every PATH the user named is there (a glob that matches nothing
// is said by the walk): a search of a mistyped folder must not look like a search with no hit.
func namedPathsExist(paths []string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil && !strings.ContainsAny(p, "*?[") {
			return err
		}
	}
	return nil
}

// agentSessionDirs are the folders where the agents ctxc reads keep their sessions (the
// registry's), those that exist, and opencode's and Kilo's stores (files: their data folders
// also hold clones of repositories), where XDG_DATA_HOME puts them.
func agentSessionDirs() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range append(agent.SessionDirs(home), sessionstore.DefaultPaths()...) {
		if slices.Contains(out, p) {
			continue
		}
		if info, err := os.Stat(p); err == nil && (info.IsDir() || sessionstore.IsStoreFile(p) || sessionstore.IsSessionName(p)) {
			out = append(out, p)
		}
	}
	return out
}

func absPaths(files []string) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, f := range files {
		if a, err := filepath.Abs(f); err == nil {
			out[a] = true
		}
	}
	return out
}

type searchJSON struct {
	Type string `json:"type"`
	index.Result
}

// printResults writes the results: JSON Lines, or a block of three lines each.
func printResults(opts *SearchOptions, results []index.Result) error {
	w := bufio.NewWriter(opts.IO.Out)
	if opts.Global.JSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(searchJSON{Type: "result", Result: r}); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		when := ""
		if !r.Time.IsZero() {
			when = r.Time.Local().Format("2006-01-02 15:04") + "  "
		}
		fmt.Fprintf(w, "%s:%d  %s  %s%s  %.2f\n", quote.Name(r.Path), r.Line, r.Agent, when, r.Role, r.Score)
		fmt.Fprintf(w, "  %s\n", r.Snippet)
		if r.Resume != "" {
			fmt.Fprintf(w, "  resume: %s\n", r.Resume)
		} else if r.Project != "" {
			fmt.Fprintf(w, "  project: %s\n", r.Project)
		}
	}
	return w.Flush()
}

package cmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// IndexOptions are the inputs of `ctxc index`.
type IndexOptions struct {
	IO     *IOStreams
	Global *GlobalOptions

	Paths []string
	From  string
	DB    string
}

// NewCmdIndex builds `ctxc index`.
func NewCmdIndex(f *Factory, runF func(*IndexOptions) error) *cobra.Command {
	opts := &IndexOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "index PATH...",
		Short: "Build or update the search index of an archive of sessions",
		Long: `Index the messages of every session under PATH (files, directories, globs) in an SQLite
FTS5 database (pure Go, no cgo), for ctxc grep --index. Only files whose size or modification
time changed since they were indexed are read again, so a nightly run over an archive reads what
changed; files indexed under PATH that are gone are forgotten. Each file is replaced in one
transaction: an update that is killed leaves every file as it was or fully indexed.

The index is at $XDG_CACHE_HOME/ctxc/index.db (~/.cache/ctxc/index.db) unless --db says
otherwise.`,
		Example: `  ctxc index ~/.claude/projects ~/.codex/sessions
  ctxc grep --index 'migration plan' ~/.claude/projects`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runIndex(opts)
		},
	}
	c.Flags().StringVar(&opts.DB, "db", "", "index database (default $XDG_CACHE_HOME/ctxc/index.db)")
	c.Flags().StringVar(&opts.From, "from", "", "read the list of paths from this file (- for standard input), one per line")
	return c
}

func indexPath(db string) (string, error) {
	if db != "" {
		return db, nil
	}
	return grep.DefaultIndexPath()
}

func runIndex(opts *IndexOptions) error {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &UsageError{err}
	}
	paths, err := gatherPaths(opts.IO, opts.Paths, opts.From, "index")
	if err != nil {
		return err
	}
	files, err := expandPaths(paths, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	db, err := indexPath(opts.DB)
	if err != nil {
		return err
	}
	start := time.Now()
	ix, err := grep.OpenIndex(db, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	st, err := ix.Update(files, paths, format, func(err error) {
		fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+err.Error())
	})
	if err != nil {
		return err
	}
	if opts.Global.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(map[string]any{"type": "index", "db": db, "files": st.Files,
			"indexed": st.Indexed, "unchanged": st.Unchanged, "removed": st.Removed, "failed": st.Failed,
			"messages": st.Messages, "seconds": time.Since(start).Seconds()})
	}
	if !opts.Global.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "%s: %d file(s): %d indexed (%d messages), %d unchanged, %d removed, %d failed in %.2fs\n",
			db, st.Files, st.Indexed, st.Messages, st.Unchanged, st.Removed, st.Failed, time.Since(start).Seconds())
	}
	if st.Failed > 0 {
		return &ExitError{Code: ExitPartial, Err: fmt.Errorf("%d file(s) failed", st.Failed), Silent: true}
	}
	return nil
}

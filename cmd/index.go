package cmd

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/index"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// IndexOptions are the inputs of `ctxc index`.
type IndexOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Paths []string
	From  string
	DB    string
}

// NewCmdIndex builds `ctxc index`.
func NewCmdIndex(f *cmdutil.Factory, runF func(*IndexOptions) error) *cobra.Command {
	opts := &IndexOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "index PATH...",
		Short: "Build or update the search index of an archive of sessions",
		Long: `Index every session under PATH (files, directories, globs) for ctxc grep --index and
ctxc search. Unchanged files are not read; a session that grew is read from where the index
stopped (its appended lines only); a rewritten one is read again; files indexed under PATH that
are gone are forgotten. The index is a folder of segment files and a manifest written last:
an update that is killed leaves the index as it was before it. Segments are merged as they
accumulate, a few at a time, never the whole index; an index written by an older ctxc is
rebuilt once, and the command says why.

The index is the folder $XDG_CACHE_HOME/ctxc/index (~/.cache/ctxc/index) unless --db says
otherwise.`,
		Example: `  ctxc index ~/.claude/projects ~/.codex/sessions
  ctxc grep --index 'migration plan' ~/.claude/projects
  ctxc search 'reconnect bug'`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runIndex(opts)
		},
	}
	c.Flags().StringVar(&opts.DB, "db", "", "index folder (default $XDG_CACHE_HOME/ctxc/index)")
	c.Flags().StringVar(&opts.From, "from", "", "read the list of paths from this file (- for standard input), one per line")
	return c
}

func indexPath(db string) (string, error) {
	if db != "" {
		return db, nil
	}
	return index.DefaultDir()
}

func runIndex(opts *IndexOptions) error {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	paths, err := cmdutil.GatherPaths(opts.IO, opts.Paths, opts.From, "index")
	if err != nil {
		return err
	}
	dir, err := indexPath(opts.DB)
	if err != nil {
		return err
	}
	start := time.Now()
	walker := index.NewWalker(dir)
	files, err := cmdutil.ExpandWith(paths, opts.IO, opts.IO.ErrOut, true, walker.WalkDir)
	if err != nil {
		return err
	}
	st, err := updateIndex(opts.IO, opts.Global, dir, files, paths, walker, format)
	if err != nil {
		return err
	}
	if opts.Global.JSON {
		return json.NewEncoder(opts.IO.Out).Encode(map[string]any{"type": "index", "index": dir, "files": st.Files,
			"indexed": st.Indexed, "appended": st.Appended, "unchanged": st.Unchanged, "removed": st.Removed,
			"failed": st.Failed, "messages": st.Messages, "bytes": st.Bytes, "rebuilt": st.Rebuilt, "merged": st.Merged,
			"seconds": time.Since(start).Seconds()})
	}
	if !opts.Global.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "%s: %d file(s): %d indexed, %d grown, %d unchanged, %d removed, %d failed; %d messages, %s read in %.2fs\n",
			dir, st.Files, st.Indexed, st.Appended, st.Unchanged, st.Removed, st.Failed, st.Messages, humanBytes(st.Bytes), time.Since(start).Seconds())
	}
	if st.Failed > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitPartial, Err: fmt.Errorf("%d file(s) failed", st.Failed), Silent: true}
	}
	return nil
}

// updateIndex brings the index in dir up to date with files (found under roots by walker),
// with a progress bar on a terminal.
func updateIndex(ios *iostreams.IOStreams, g *cmdutil.GlobalOptions, dir string, files, roots []string, walker *index.Walker, format transcript.Format) (index.UpdateStats, error) {
	bar := iostreams.NewByteProgress(ios, g.Bars(), "indexing")
	defer bar.Finish()
	return index.Update(dir, files, roots, index.UpdateOptions{
		Dirs:    walker.Seen,
		Format:  format,
		Warn:    func(err error) { fmt.Fprintln(ios.ErrOut, "ctxc: "+quote.Name(err.Error())) },
		Notice:  func(s string) { fmt.Fprintln(ios.ErrOut, "ctxc: "+s) },
		Planned: bar.Plan,
		Done:    bar.AddBytes,
	})
}

// humanBytes writes a byte count with a binary unit (1.5 MiB).
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Package archivecmd is `ctxc archive`: sessions kept compressed, once each, in a local folder
// or an S3-compatible bucket, and what a run archived, printed.
package archivecmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxc/ctxc/internal/address"
	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/spf13/cobra"
)

// ArchiveOptions are the inputs of `ctxc archive`.
type ArchiveOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions

	Sources []string
	Dest    string
	Verify  bool
	DryRun  bool
	Redact  bool
}

// NewCmdArchive builds `ctxc archive`. runF replaces the run function in tests.
func NewCmdArchive(f *cmdutil.Factory, runF func(context.Context, *ArchiveOptions) error) *cobra.Command {
	opts := &ArchiveOptions{IO: f.IO, Global: &f.Global}
	c := &cobra.Command{
		Use:   "archive SRC... DEST",
		Short: "Keep every session: copy new lines into zstd files, incrementally and verified",
		Long: `Copy every session file under SRC (a file, a directory: every *.jsonl below it, or a glob)
into DEST as DEST/<SRC's name>/<path below SRC>.zst, compressed with zstd, before the agent
deletes it (Claude Code removes sessions older than cleanupPeriodDays, 30 by default).

Each run appends to a session's archive one zstd frame holding the complete lines it gained since
the last run; an unfinished last line is left for the next run. Every frame is decoded back and
compared with the session's bytes before DEST/.ctxc-archive.json records it. A session that
shrank or was rewritten is archived anew: the old archive is kept as NAME.1.jsonl.zst (then .2,
...). A run killed at any moment leaves every archive readable and the next run completes it.

The archives are standard zstd: zstd -dc NAME.jsonl.zst gives the session byte for byte. The
other ctxc commands read them as they are (stats, load, grep, audit, expand, lint, memory, mcp, and
DEST as a directory); their line numbers are those of the decompressed session. Archives are
read-only: compact and repair write a copy with -o.

--redact replaces API keys, tokens, private keys, passwords and connection strings inside the
JSON string values of the lines archived by a typed placeholder ([REDACTED:KIND:HASH]): every
line stays valid JSON and every command reads the session as before; the source is unchanged.
A session archived with --redact is continued only with it (docs/team-archive.md lists the
patterns).

--verify DEST reads every archive back and checks it against the manifest (exit 1 on a mismatch).`,
		Example: `  ctxc archive ~/.claude/projects ~/.codex/sessions ~/sessions-archive
  ctxc archive --verify ~/sessions-archive
  ctxc grep 'migration' ~/sessions-archive
  zstd -dc ~/sessions-archive/projects/-home-me-proj/ID.jsonl.zst > ID.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.setArgs(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			if opts.Verify {
				return runArchiveVerify(opts)
			}
			return runArchive(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Verify, "verify", false, "read every archive in DEST back and check it against the manifest")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "say what would be copied; write nothing")
	c.Flags().BoolVar(&opts.Redact, "redact", false, "replace secrets inside the lines' JSON string values (the archive is then no byte-exact copy)")
	return c
}

func (o *ArchiveOptions) setArgs(args []string) error {
	switch {
	case o.Verify && len(args) != 1:
		return &cmdutil.UsageError{Err: errors.New("archive --verify needs exactly DEST")}
	case o.Verify:
		o.Dest = args[0]
	case len(args) < 2:
		return &cmdutil.UsageError{Err: errors.New("archive needs SRC... DEST (a session file or directory, then the archive directory)")}
	default:
		o.Sources, o.Dest = args[:len(args)-1], args[len(args)-1]
	}
	for _, s := range o.Sources {
		if s == "-" {
			return &cmdutil.UsageError{Err: errors.New("archive copies files: standard input cannot be a SRC")}
		}
	}
	return nil
}

// archiveSources finds the session files under each SRC and names their archives; a glob
// stands for each file or directory it matches.
func archiveSources(opts *ArchiveOptions, dest string) ([]archive.Source, error) {
	roots, err := cmdutil.SourceRoots(opts.Sources, opts.IO.ErrOut)
	if err != nil {
		return nil, err
	}
	// The archives must not land among the sessions they copy, nor the sessions inside DEST.
	if err := safewrite.CheckApart(dest, roots); err != nil {
		return nil, err
	}
	var out []archive.Source
	for _, root := range roots {
		files, err := cmdutil.ExpandSessions([]string{root}, opts.IO, false)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			switch address.Parse(f).Kind {
			case address.StoreSession, address.Converted:
				continue // archives hold files: a store's session, read as its export, is not one
			case address.Archive:
				fmt.Fprintf(opts.IO.ErrOut, "ctxc: %s: already an archived session (zstd): not archived again\n", quote.Name(f))
				continue
			case address.Snapshot:
				fmt.Fprintf(opts.IO.ErrOut, "ctxc: %s: a Continue CLI session, rewritten whole: not archived (an archive grows by the lines a session gains)\n", quote.Name(f))
				continue
			}
			name, err := archive.NameFor(root, f)
			if err != nil {
				return nil, err
			}
			out = append(out, archive.Source{Path: f, Name: name})
		}
	}
	return out, nil
}

// Summary is the last --json object of a run.
type Summary struct {
	Type       string `json:"type"`
	Files      int    `json:"files"`
	New        int    `json:"new"`
	Grew       int    `json:"grew"`
	Versions   int    `json:"new_versions"`
	Unchanged  int    `json:"unchanged"`
	Failed     int    `json:"failed"`
	Bytes      int64  `json:"bytes"`
	Compressed int64  `json:"compressed"`
	Redacted   int    `json:"redacted,omitempty"`       // secrets replaced (--redact)
	Uploaded   *int   `json:"uploaded,omitempty"`       // objects sent to the store (s3:// only)
	UpBytes    int64  `json:"uploaded_bytes,omitempty"` // their bytes
	DryRun     bool   `json:"dry_run,omitempty"`
}

func (s *Summary) add(r archive.Result) {
	switch r.Status {
	case archive.StatusNew:
		s.New++
	case archive.StatusGrew:
		s.Grew++
	case archive.StatusVersion:
		s.Versions++
	default:
		s.Unchanged++
	}
	s.Bytes += r.Bytes
	s.Compressed += r.Compressed
	s.Redacted += r.Redacted
}

func runArchive(ctx context.Context, opts *ArchiveOptions) error {
	if objstore.IsURL(opts.Dest) {
		return runArchiveS3(ctx, opts)
	}
	srcs, err := archiveSources(opts, opts.Dest)
	if err != nil {
		return err
	}
	sum, err := archiveInto(ctx, opts, opts.Dest, srcs)
	if err != nil {
		return err
	}
	printArchiveSummary(opts, sum)
	return cmdutil.BatchExit(ctx, sum.Failed, sum.Files)
}

// archiveInto archives the sources into the local folder dest, printing a line per file.
func archiveInto(ctx context.Context, opts *ArchiveOptions, dest string, srcs []archive.Source) (Summary, error) {
	sum := Summary{Type: "summary", Files: len(srcs), DryRun: opts.DryRun}
	a, err := archive.Open(dest, opts.DryRun)
	if err != nil {
		return sum, err
	}
	a.Redact = opts.Redact
	refused := a.Prepare(srcs)
	for _, s := range srcs {
		if ctx.Err() != nil {
			break
		}
		r, err := a.File(s)
		if err == nil {
			err = refused[s.Name]
		}
		if err != nil {
			sum.Failed++
			printArchiveError(opts, s.Path, err)
			continue
		}
		sum.add(r)
		if err := printArchiveResult(opts, r); err != nil {
			a.Close()
			return sum, err
		}
	}
	return sum, a.Close()
}

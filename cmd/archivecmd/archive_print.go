package archivecmd

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
)

func printArchiveError(opts *ArchiveOptions, path string, err error) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(cmdutil.FileError{Type: "error", Path: path, Code: cmdutil.ExitCode(err), Message: err.Error()})
	}
	fmt.Fprintln(opts.IO.ErrOut, "ctxc: "+quote.Name(err.Error()))
}

// printArchiveResult prints one line per file archived; unchanged files are only counted.
func printArchiveResult(opts *ArchiveOptions, r archive.Result) error {
	if r.Warning {
		fmt.Fprintf(opts.IO.ErrOut, "ctxc: %s: %s; the old archive is kept as %s\n", quote.Name(r.Source), r.Note, quote.Name(r.Kept))
	}
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			Type string `json:"type"`
			archive.Result
		}{"file", r})
	}
	if opts.Global.Quiet || r.Status == archive.StatusUnchanged {
		return nil
	}
	verb := map[bool]string{true: "would copy", false: "copied"}[opts.DryRun]
	line := fmt.Sprintf("%-11s %s → %s: %s %d bytes", r.Status, quote.Name(r.Source), quote.Name(r.Archive), verb, r.Bytes)
	if r.Status == archive.StatusGrew {
		line = fmt.Sprintf("%-11s %s → %s: +%d bytes", r.Status, quote.Name(r.Source), quote.Name(r.Archive), r.Bytes)
	}
	if !opts.DryRun {
		line += fmt.Sprintf(" (%d compressed)", r.Compressed)
	}
	if r.Kept != "" && !r.Warning {
		line += fmt.Sprintf("; %s, the old archive is kept as %s", r.Note, quote.Name(r.Kept))
	}
	if r.Held > 0 {
		line += fmt.Sprintf("; %d bytes of an unfinished line left for the next run", r.Held)
	}
	_, err := fmt.Fprintln(opts.IO.Out, line)
	return err
}

func printArchiveSummary(opts *ArchiveOptions, s Summary) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		return
	}
	if opts.Global.Quiet {
		return
	}
	what := "archived"
	if s.DryRun {
		what = "dry run, nothing written"
	}
	up := ""
	if s.Uploaded != nil {
		up = fmt.Sprintf("; %d object(s) uploaded (%d bytes)", *s.Uploaded, s.UpBytes)
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s: %d file(s): %d new, %d grew, %d new version(s), %d unchanged, %d failed; %d bytes copied (%d compressed)%s\n",
		what, s.Files, s.New, s.Grew, s.Versions, s.Unchanged, s.Failed, s.Bytes, s.Compressed, up)
}

// runArchiveVerify checks every archive in DEST against the manifest.
func runArchiveVerify(opts *ArchiveOptions) error {
	dest := opts.Dest
	if objstore.IsURL(dest) {
		dir, err := cmdutil.MirrorBucket(dest)
		if err != nil {
			return err
		}
		dest = dir
	}
	checks, err := archive.Verify(dest)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	bad := 0
	for _, c := range checks {
		if !c.OK {
			bad++
		}
		switch {
		case opts.Global.JSON:
			enc.Encode(struct {
				Type string `json:"type"`
				archive.Check
			}{"verify", c})
		case !c.OK:
			fmt.Fprintf(opts.IO.ErrOut, "ctxc: %s: MISMATCH: %s\n", quote.Name(archivePath(opts.Dest, c.Archive)), c.Message)
		case c.Message != "" && !opts.Global.Quiet:
			fmt.Fprintf(opts.IO.ErrOut, "%s: %s\n", quote.Name(archivePath(opts.Dest, c.Archive)), c.Message)
		}
	}
	if opts.Global.JSON {
		enc.Encode(map[string]any{"type": "summary", "archives": len(checks), "mismatches": bad})
	} else if !opts.Global.Quiet {
		fmt.Fprintf(opts.IO.ErrOut, "verified %d archive(s): %d mismatch(es)\n", len(checks), bad)
	}
	if bad > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d archive(s) do not match the manifest", bad)}
	}
	return nil
}

func archivePath(dest, name string) string { return dest + "/" + name }

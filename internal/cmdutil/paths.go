package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/address"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
)

// ExpandPaths turns command-line paths into files: a directory stands for every *.jsonl below
// it, every archived session *.jsonl.zst (ctxc archive), which the commands read decompressed,
// and every OpenClaw store (transcript.StoreSessions), by the rule of transcript.Finder
// (recursively, in lexical order, following symbolic links, each file once; a loop of links and
// a folder that cannot be read are said on errOut, the walk goes on, and an unreadable folder
// makes the run partial: IOStreams.WalkFailed); a pattern with glob characters that names no
// existing file is expanded, and "-" is standard input. A directory or pattern that yields no
// file is not an error (an empty ~/.claude/projects is a normal first run), but it is said: one
// line on errOut for each.
func ExpandPaths(args []string, ios *iostreams.IOStreams) ([]string, error) {
	return ExpandSessions(args, ios, true)
}

// ExpandSessions is ExpandPaths; without archived, a directory stands for its *.jsonl files only
// (for the commands that write into the sessions they find: an archive named on the command
// line is still given, and refused with the reason).
func ExpandSessions(args []string, ios *iostreams.IOStreams, archived bool) ([]string, error) {
	return ExpandWith(args, ios, ios.ErrOut, archived, filepath.WalkDir)
}

// ExpandWith is ExpandSessions walking directories with walk (filepath.WalkDir, or the
// index's Walker, which reads a folder that did not change from the index's listing); a
// directory or pattern that yields no file is said on say (io.Discard for folders looked in
// on the user's behalf rather than named). The expansion is address.Expander's, as for the MCP
// server's tools, with the command line's rules.
func ExpandWith(args []string, ios *iostreams.IOStreams, say io.Writer, archived bool, walk func(string, fs.WalkDirFunc) error) ([]string, error) {
	finder := transcript.NewFinder(archived, walk)
	e := &address.Expander{Finder: finder, Say: say, CommandLine: true, Mirror: MirrorBucket}
	out, err := e.Expand(args)
	if _, ok := errors.AsType[*address.PatternError](err); ok {
		err = &UsageError{err}
	}
	for _, p := range finder.Problems {
		fmt.Fprintln(ios.ErrOut, "ctxc: "+quote.Name(p.Error()))
		if p.Unreadable() {
			ios.WalkFailed()
		}
	}
	return out, err
}

// ReadPathList reads one path per line (for `find ... | ctxc compact --from -`).
func ReadPathList(r io.Reader) ([]string, error) {
	var out []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if p := strings.TrimRight(line, "\r\n"); strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// GatherPaths joins the command-line paths and the --from list; none at all is a usage error.
func GatherPaths(ios *iostreams.IOStreams, args []string, from, what string) ([]string, error) {
	paths := args
	if from != "" {
		list, err := ReadFromList(ios, from)
		if err != nil {
			return nil, err
		}
		paths = append(paths, list...)
	}
	if len(paths) == 0 {
		hint := "a file or a directory"
		if what == "stats" {
			hint = "a file, a directory, or - for standard input"
		}
		return nil, &UsageError{fmt.Errorf("%s needs a PATH (%s)", what, hint)}
	}
	return paths, nil
}

// SourceRoots are the SRC arguments of archive and export: each as it is, or a glob (one that
// names no existing path) as every path it matches, one that matches nothing said on say.
func SourceRoots(sources []string, say io.Writer) ([]string, error) {
	var roots []string
	for _, s := range sources {
		if _, err := os.Stat(s); err != nil && strings.ContainsAny(s, "*?[") {
			m, gerr := filepath.Glob(s)
			if gerr != nil {
				return nil, &UsageError{fmt.Errorf("bad pattern %q: %w", s, gerr)}
			}
			if len(m) == 0 {
				fmt.Fprintf(say, "ctxc: %s: no file matches: no transcript found\n", quote.Name(s))
			}
			roots = append(roots, m...)
			continue
		}
		roots = append(roots, s)
	}
	return roots, nil
}

// FileArgs expands the path arguments (and --from) of command what, which reads files: "-" is
// refused with stdinErr.
func FileArgs(ios *iostreams.IOStreams, args []string, from, what, stdinErr string) ([]string, error) {
	return SessionArgs(ios, args, from, what, stdinErr, true)
}

// SessionArgs is FileArgs; without archived, directories stand for their plain sessions only
// (ExpandSessions).
func SessionArgs(ios *iostreams.IOStreams, args []string, from, what, stdinErr string, archived bool) ([]string, error) {
	paths, err := GatherPaths(ios, args, from, what)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if p == "-" {
			return nil, &UsageError{errors.New(stdinErr)}
		}
	}
	return ExpandSessions(paths, ios, archived)
}

func ReadFromList(io *iostreams.IOStreams, from string) ([]string, error) {
	if from == "-" {
		return ReadPathList(io.In)
	}
	fh, err := os.Open(from)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return ReadPathList(fh)
}

package cmd

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
)

// expandPaths turns command-line paths into files: a directory stands for every *.jsonl below
// it, every archived session *.jsonl.zst (ctxc archive), which the commands read decompressed,
// and every OpenClaw store (transcript.StoreSessions), by the rule of transcript.Finder
// (recursively, in lexical order, following symbolic links, each file once; a loop of links and
// a folder that cannot be read are said on errOut, the walk goes on, and an unreadable folder
// makes the run partial: IOStreams.walkFailed); a pattern with glob characters that names no
// existing file is expanded, and "-" is standard input. A directory or pattern that yields no
// file is not an error (an empty ~/.claude/projects is a normal first run), but it is said: one
// line on errOut for each.
func expandPaths(args []string, ios *IOStreams) ([]string, error) {
	return expandSessions(args, ios, true)
}

// expandSessions is expandPaths; without archived, a directory stands for its *.jsonl files only
// (for the commands that write into the sessions they find: an archive named on the command
// line is still given, and refused with the reason).
func expandSessions(args []string, ios *IOStreams, archived bool) ([]string, error) {
	return expandWith(args, ios, ios.ErrOut, archived, filepath.WalkDir)
}

// expandWith is expandSessions walking directories with walk (filepath.WalkDir, or the
// index's Walker, which reads a folder that did not change from the index's listing); a
// directory or pattern that yields no file is said on say (io.Discard for folders looked in
// on the user's behalf rather than named).
func expandWith(args []string, ios *IOStreams, say io.Writer, archived bool, walk func(string, fs.WalkDirFunc) error) ([]string, error) {
	finder := transcript.NewFinder(archived, walk)
	out, err := expandArgs(args, say, finder)
	for _, p := range finder.Problems {
		fmt.Fprintln(ios.ErrOut, "ctxc: "+quote.Name(p.Error()))
		if p.Unreadable() {
			ios.walkFailed.Add(1)
		}
	}
	return out, err
}

// expandArgs is expandWith's expansion of args by finder.
func expandArgs(args []string, say io.Writer, finder *transcript.Finder) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			out = append(out, a)
			continue
		}
		if objstore.IsURL(a) {
			dir, err := mirrorBucket(a)
			if err != nil {
				return nil, err
			}
			a = dir
		}
		info, err := os.Stat(a)
		if err != nil && strings.ContainsAny(a, "*?[") {
			matches, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, &UsageError{fmt.Errorf("bad pattern %q: %w", a, gerr)}
			}
			if len(matches) == 0 {
				fmt.Fprintf(say, "ctxc: %s: no file matches: no transcript found\n", quote.Name(a))
				continue
			}
			sub, err := expandArgs(matches, say, finder)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		if err != nil {
			out = append(out, a) // reported per file, with the reason, when it is opened
			continue
		}
		if !info.IsDir() {
			sessions, err := transcript.StoreSessions(a)
			if err != nil {
				return nil, err
			}
			out = append(out, sessions...)
			continue
		}
		sessions, again, err := finder.Below(a)
		if err != nil {
			return nil, err
		}
		if len(sessions) == 0 && again == 0 {
			fmt.Fprintf(say, "ctxc: %s: no transcript found (no *.jsonl or *.jsonl.zst file in this directory or below it)\n", quote.Name(a))
		}
		out = append(out, sessions...)
	}
	return out, nil
}

// readPathList reads one path per line (for `find ... | ctxc compact --from -`).
func readPathList(r io.Reader) ([]string, error) {
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

// gatherPaths joins the command-line paths and the --from list; none at all is a usage error.
func gatherPaths(ios *IOStreams, args []string, from, what string) ([]string, error) {
	paths := args
	if from != "" {
		list, err := readFromList(ios, from)
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

// sourceRoots are the SRC arguments of archive and export: each as it is, or a glob (one that
// names no existing path) as every path it matches, one that matches nothing said on say.
func sourceRoots(sources []string, say io.Writer) ([]string, error) {
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

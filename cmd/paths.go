package cmd

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// expandPaths turns command-line paths into files: a directory stands for every *.jsonl below
// it (recursively, in lexical order, not following symlinked directories), a pattern with glob
// characters that names no existing file is expanded, and "-" is standard input. A directory or
// pattern that yields no file is not an error (an empty ~/.claude/projects is a normal first
// run), but it is said: one line on errOut for each.
func expandPaths(args []string, errOut io.Writer) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			out = append(out, a)
			continue
		}
		info, err := os.Stat(a)
		if err != nil && strings.ContainsAny(a, "*?[") {
			matches, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, &UsageError{fmt.Errorf("bad pattern %q: %w", a, gerr)}
			}
			if len(matches) == 0 {
				fmt.Fprintf(errOut, "ctxc: %s: no file matches: no transcript found\n", a)
				continue
			}
			sub, err := expandPaths(matches, errOut)
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
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") && d.Type().IsRegular() && !agentAside(p) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			fmt.Fprintf(errOut, "ctxc: %s: no transcript found (no *.jsonl file in this directory or below it)\n", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// agentAside: a JSONL file an agent keeps beside its sessions (Qwen Code's usage logs under
// ~/.qwen; Gemini CLI's sessions are ~/.gemini/tmp/<project>/chats/*.jsonl, Qwen Code's
// ~/.qwen/projects/<project>/chats/*.jsonl), which a directory argument leaves out.
func agentAside(p string) bool {
	p = filepath.ToSlash(p)
	for _, home := range []string{"/.gemini/", "/.qwen/"} {
		if i := strings.LastIndex(p, home); i >= 0 && !strings.Contains(p[i:], "/chats/") {
			return true
		}
	}
	return false
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

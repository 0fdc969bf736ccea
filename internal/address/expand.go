package address

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Expander turns the paths a command is given into the sessions they stand for: a store's
// session (STORE#SESSION-ID) and a file as they are, a store for its sessions, a directory for
// every session below it (Finder: *.jsonl, archived *.jsonl.zst when the Finder takes them,
// stores, not the files an agent keeps beside its sessions; links followed, each file once,
// what the walk went past in Finder.Problems).
type Expander struct {
	Finder *transcript.Finder
	// Say is where a directory or pattern that yields no session is said, one line each (nil:
	// not said). Neither is an error: an empty ~/.claude/projects is a normal first run.
	Say io.Writer
	// CommandLine takes the command line's arguments: "-" is standard input, a pattern with
	// glob characters that names no existing file is expanded, a bucket's URL is read through
	// Mirror (the folder it is copied into), and a path that does not exist is kept (reported,
	// with the reason, when it is opened). Without it (the MCP server's tools), a path that
	// is neither an existing file nor a store's session is an error.
	CommandLine bool
	Mirror      func(url string) (dir string, err error)
}

// PatternError is a glob pattern that cannot be read.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return fmt.Sprintf("bad pattern %q: %v", e.Pattern, e.Err) }
func (e *PatternError) Unwrap() error { return e.Err }

// Expand is what the paths stand for, in order.
func (e *Expander) Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		found, err := e.one(p)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// one is what one path stands for.
func (e *Expander) one(p string) ([]string, error) {
	if e.CommandLine && p == "-" {
		return []string{p}, nil
	}
	if e.CommandLine && e.Mirror != nil && objstore.IsURL(p) {
		dir, err := e.Mirror(p)
		if err != nil {
			return nil, err
		}
		p = dir
	}
	info, err := os.Stat(p)
	if err != nil {
		switch {
		case sessionstore.IsSessionName(p):
			return []string{p}, nil // (read, or said missing, when it is opened)
		case e.CommandLine && strings.ContainsAny(p, "*?["):
			return e.glob(p)
		case e.CommandLine:
			return []string{p}, nil // reported per file, with the reason, when it is opened
		}
		return nil, err
	}
	if !info.IsDir() {
		return transcript.StoreSessions(p)
	}
	sessions, again, err := e.Finder.Below(p)
	if err != nil {
		return nil, err
	}
	if len(sessions) == 0 && again == 0 {
		e.say("ctxc: %s: no transcript found (no *.jsonl or *.jsonl.zst file in this directory or below it)\n", p)
	}
	return sessions, nil
}

// glob is what a pattern stands for: every path it matches, expanded in turn.
func (e *Expander) glob(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, &PatternError{pattern, err}
	}
	if len(matches) == 0 {
		e.say("ctxc: %s: no file matches: no transcript found\n", pattern)
		return nil, nil
	}
	return e.Expand(matches)
}

func (e *Expander) say(format, name string) {
	if e.Say != nil {
		fmt.Fprintf(e.Say, format, quote.Name(name))
	}
}

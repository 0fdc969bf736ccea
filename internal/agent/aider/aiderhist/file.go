package aiderhist

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
)

// FileName is the history's name when Aider chooses it: in the git root of the folder it runs
// in, else in that folder (--chat-history-file names another).
const FileName = ".aider.chat.history.md"

// headBytes is how much of a *.md file of another name is read to find a session's start line.
const headBytes = 64 << 10

// Files reads histories as their JSONL exports (internal/storefiles): a directory walk finds
// the files Aider names so, search looks where Aider keeps the history of the folder it runs in.
var Files = &storefiles.Converted{Name: "aider", Is: IsHistory, Export: exportFile,
	Refuse:   func(p string) error { return ReadOnly(p) },
	Found:    func(_, name string) bool { return Named(name) },
	Defaults: DefaultPaths}

// ReadOnly is the error of a command that would write into a history: ctxc only reads it.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is an Aider chat history, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is the one Aider gives its history: a directory walk
// reads such files.
func Named(name string) bool { return filepath.Base(name) == FileName }

// IsHistory reports whether path is a history: a regular file named .aider.chat.history.md, or
// a *.md file (a --chat-history-file) with a session's start line in its first 64 KiB.
func IsHistory(path string) bool {
	named := Named(path)
	if !named && !strings.HasSuffix(path, ".md") {
		return false
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	return named || startsSession(path)
}

// startsSession reports whether the first headBytes of a file hold a line that starts with
// SessionPrefix.
func startsSession(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, headBytes))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(head, []byte(SessionPrefix)) || bytes.Contains(head, []byte("\n"+SessionPrefix))
}

// exportFile is Export of the file at path; an error names it.
func exportFile(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := Export(f, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// DefaultPaths are where Aider keeps the history of the folder ctxc runs in: the git root's,
// and the folder's own (Aider's choice outside a git repository).
func DefaultPaths() []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	var out []string
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			out = append(out, filepath.Join(dir, FileName))
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if p := filepath.Join(wd, FileName); len(out) == 0 || out[0] != p {
		out = append(out, p)
	}
	return out
}

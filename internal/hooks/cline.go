package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// cline installs ctxc's hook file, PostToolUse.bash, in Cline's global hooks folder
// (~/.cline/hooks/, or Options.Path). Cline 3.0.65 runs a file of that folder named after a hook
// event (PostToolUse, with one of the extensions it knows) through the interpreter of its first
// line, after each tool call, and adds the "contextModification" of its JSON answer to the next
// request. It runs no PreCompact file (it lists it but never runs it), and the answers of its
// other hooks reach no request: so ctxc's hook is a PostToolUse one, and `ctxc hook cline`
// answers only the first tool call after each of Cline's compactions. The file is ctxc's own:
// its second line says so, and uninstall deletes only a file that carries that line. A file of
// the same name that ctxc did not write is never replaced nor deleted.
type cline struct{}

// ClineFile is the name of ctxc's hook file in Cline's hooks folder. (.bash: a user's own
// PostToolUse hook is more often PostToolUse or PostToolUse.sh; Cline runs them all.)
const ClineFile = "PostToolUse.bash"

// clineHeader is the second line of the file ctxc writes (the first is its interpreter).
const clineHeader = "# Installed by ctxc (ctxc hooks install cline); ctxc hooks uninstall cline removes it.\n"

func (cline) Name() string { return agent.Cline }

func (cline) Place() Place { return Place{What: "ctxc's hook file"} }

func (cline) path(o Options) string {
	return filepath.Join(defaultPath(o, ".cline", "hooks"), ClineFile)
}

// script is the file's content for o: it runs ctxc's hook with Cline's input on stdin. A ctxc
// that is gone fails with nothing on stdout, which Cline ignores.
func (cline) script(o Options) []byte {
	return []byte("#!/usr/bin/env bash\n" + clineHeader +
		"# Cline runs it after each tool call; after Cline compacted the session, ctxc answers once with the\n" +
		"# facts the compaction lost (contextModification), which Cline adds to the next request.\n" +
		"exec " + hookCommand(o, agent.Cline) + "\n")
}

func clineOwned(data []byte) bool {
	_, rest, ok := bytes.Cut(data, []byte("\n"))
	return ok && bytes.HasPrefix(rest, []byte(clineHeader))
}

func (c cline) Install(o Options) (Change, error) {
	path := c.path(o)
	ch := Change{Agent: c.Name(), Path: path}
	old, _, exists, err := readFile(path)
	if err != nil {
		return ch, err
	}
	if exists && !clineOwned(old) {
		return ch, &ConflictError{Path: path, Msg: "a file ctxc did not write is already there; nothing was changed (move it away to install ctxc's hook)"}
	}
	data := c.script(o)
	if bytes.Equal(old, data) {
		if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o100 != 0 {
			ch.Note = "already installed"
			return ch, nil
		}
	}
	ch.Changed = true
	if o.DryRun {
		ch.Preview = string(data)
		return ch, nil
	}
	if _, err := writeFile(path, old, 0o755, exists, data, false); err != nil {
		return ch, err
	}
	return ch, os.Chmod(path, 0o755)
}

func (c cline) Uninstall(o Options) (Change, error) {
	path := c.path(o)
	ch := Change{Agent: c.Name(), Path: path}
	old, _, exists, err := readFile(path)
	if err != nil || !exists {
		if err == nil {
			ch.Note = "not installed"
		}
		return ch, err
	}
	if !clineOwned(old) {
		return ch, &ConflictError{Path: path, Msg: "not written by ctxc (its second line is not ctxc's); left in place"}
	}
	ch.Changed = true
	if o.DryRun {
		return ch, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ch, err
	}
	return ch, nil
}

func (c cline) Status(o Options) (State, error) {
	path := c.path(o)
	st := State{Agent: c.Name(), Path: path}
	data, _, exists, err := readFile(path)
	switch {
	case err != nil:
		return st, err
	case !exists:
		return st, nil
	case !clineOwned(data):
		st.Note = "a file ctxc did not write has ctxc's name"
		return st, nil
	}
	st.Installed = true
	for _, line := range strings.Split(string(data), "\n") {
		if cmd, ok := strings.CutPrefix(line, "exec "); ok {
			st.Command = cmd
		}
	}
	if exe, _ := firstWord(st.Command); exe != o.Ctxc {
		st.Note = "written by another ctxc; ctxc hooks install cline updates it"
	} else if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o100 == 0 {
		st.Note = "not executable; ctxc hooks install cline makes it so"
	}
	return st, nil
}

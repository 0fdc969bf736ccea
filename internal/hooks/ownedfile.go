package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
)

// ownedFile is a file that is ctxc's own in an agent's folder (pi's extension, opencode's
// plugin, Cline's hook file): its first line, header, says so (its second, when the first names
// the interpreter of a program: second), and uninstall deletes only a file that carries it. A
// file of the same name that ctxc did not write is never replaced nor deleted. No backup: the
// file is ctxc's.
type ownedFile struct {
	agent  string
	header string
	// what is the file as the notes name it ("ctxc's extension").
	what string
	// second: the header is the second line; executable: the agent runs the file as a program.
	second, executable bool
}

func (f ownedFile) owned(data []byte) bool {
	if f.second {
		_, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return false
		}
		data = rest
	}
	return bytes.HasPrefix(data, []byte(f.header))
}

// line is which line carries the header, as the messages name it.
func (f ownedFile) line() string {
	if f.second {
		return "second"
	}
	return "first"
}

// runnable reports whether the file at path can be run, as the agent needs it to be (always
// true for a file that is not a program).
func (f ownedFile) runnable(path string) bool {
	if !f.executable {
		return true
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().Perm()&0o100 != 0
}

// install writes data (which starts with the header) at path unless a file ctxc did not write
// is there.
func (f ownedFile) install(path string, data []byte, o Options) (Change, error) {
	ch := Change{Agent: f.agent, Path: path}
	old, _, exists, err := readFile(path)
	if err != nil {
		return ch, err
	}
	if exists && !f.owned(old) {
		return ch, &ConflictError{Path: path, Msg: "a file ctxc did not write is already there; nothing was changed (move it away to install " + f.what + ")"}
	}
	if bytes.Equal(old, data) && f.runnable(path) {
		ch.Note = "already installed"
		return ch, nil
	}
	ch.Changed = true
	if o.DryRun {
		ch.Preview = string(data)
		return ch, nil
	}
	mode := fs.FileMode(0o644)
	if f.executable {
		mode = 0o755
	}
	if _, err = writeFile(path, old, mode, exists, data, false); err != nil || !f.executable {
		return ch, err
	}
	return ch, os.Chmod(path, mode)
}

// uninstall deletes the file at path when ctxc wrote it.
func (f ownedFile) uninstall(path string, o Options) (Change, error) {
	ch := Change{Agent: f.agent, Path: path}
	old, _, exists, err := readFile(path)
	if err != nil || !exists {
		if err == nil {
			ch.Note = "not installed"
		}
		return ch, err
	}
	if !f.owned(old) {
		return ch, &ConflictError{Path: path, Msg: "not written by ctxc (its " + f.line() + " line is not ctxc's); left in place"}
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

// status says whether ctxc's file is at path, the command it runs (read back by command), and
// whether it is the file this ctxc would write (same: this ctxc, and for most files these
// arguments).
func (f ownedFile) status(path string, same func([]byte) bool, command func([]byte) string) (State, error) {
	st := State{Agent: f.agent, Path: path}
	data, _, exists, err := readFile(path)
	switch {
	case err != nil:
		return st, err
	case !exists:
		return st, nil
	case !f.owned(data):
		st.Note = "a file ctxc did not write has ctxc's name"
		return st, nil
	}
	st.Installed = true
	st.Command = command(data)
	switch {
	case !same(data):
		st.Note = "written by another ctxc or with other arguments; ctxc hooks install " + f.agent + " updates it"
	case !f.runnable(path):
		st.Note = "not executable; ctxc hooks install " + f.agent + " makes it so"
	}
	return st, nil
}

// sameAs is status's test for a file that must be want, byte for byte.
func sameAs(want []byte) func([]byte) bool {
	return func(data []byte) bool { return bytes.Equal(data, want) }
}

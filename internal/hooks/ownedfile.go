package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
)

// ownedFile is a file that is ctxc's own in an agent's folder (pi's extension, opencode's
// plugin): its first line, header, says so, and uninstall deletes only a file that carries it.
// A file of the same name that ctxc did not write is never replaced nor deleted. No backup: the
// file is ctxc's.
type ownedFile struct {
	agent  string
	header string
	// what is the file as the notes name it ("ctxc's extension").
	what string
}

func (f ownedFile) owned(data []byte) bool { return bytes.HasPrefix(data, []byte(f.header)) }

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
	if bytes.Equal(old, data) {
		ch.Note = "already installed"
		return ch, nil
	}
	ch.Changed = true
	if o.DryRun {
		ch.Preview = string(data)
		return ch, nil
	}
	_, err = writeFile(path, old, 0o644, exists, data, false)
	return ch, err
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
		return ch, &ConflictError{Path: path, Msg: "not written by ctxc (its first line is not ctxc's); left in place"}
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
// whether it is the file want (this ctxc, these arguments).
func (f ownedFile) status(path string, want []byte, command func([]byte) string) (State, error) {
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
	if !bytes.Equal(data, want) {
		st.Note = "written by another ctxc or with other arguments; ctxc hooks install " + f.agent + " updates it"
	}
	return st, nil
}

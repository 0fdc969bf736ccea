package hooks

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// pi installs ctxc's extension, ctxc-compact.ts, in pi's extensions directory
// (~/.pi/agent/extensions/, or Options.Path). The file is ctxc's own: its first line says so,
// and uninstall deletes only a file that carries that line. A file of the same name that ctxc
// did not write is never replaced nor deleted.
type pi struct{}

//go:embed pi_extension.ts
var piTemplate string

// PiFile is the name of ctxc's extension file.
const PiFile = "ctxc-compact.ts"

// piHeader is the first line of the file ctxc writes.
const piHeader = "// Installed by ctxc (ctxc hooks install pi); ctxc hooks uninstall pi removes it.\n"

func (pi) Name() string { return agent.Pi }

func (pi) Place() Place { return Place{What: "ctxc's extension"} }

func (p pi) path(o Options) string {
	return filepath.Join(defaultPath(o, ".pi", "agent", "extensions"), PiFile)
}

// extension is the file's content for o: the template with the executable and arguments.
func (pi) extension(o Options) []byte {
	exe, _ := json.Marshal(o.Ctxc)
	args := o.Args
	if args == nil {
		args = []string{}
	}
	arr, _ := json.Marshal(args)
	mem, _ := json.Marshal(o.Memory)
	r := strings.NewReplacer("__CTXC_ARGS__", string(arr), "__CTXC_MEMORY__", string(mem), "__CTXC__", string(exe))
	return []byte(piHeader + r.Replace(piTemplate))
}

func ownedByCtxc(data []byte) bool { return bytes.HasPrefix(data, []byte(piHeader)) }

func (p pi) Install(o Options) (Change, error) {
	path := p.path(o)
	ch := Change{Agent: p.Name(), Path: path}
	old, _, exists, err := readFile(path)
	if err != nil {
		return ch, err
	}
	if exists && !ownedByCtxc(old) {
		return ch, &ConflictError{Path: path, Msg: "a file ctxc did not write is already there; nothing was changed (move it away to install ctxc's extension)"}
	}
	data := p.extension(o)
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

func (p pi) Uninstall(o Options) (Change, error) {
	path := p.path(o)
	ch := Change{Agent: p.Name(), Path: path}
	old, _, exists, err := readFile(path)
	if err != nil || !exists {
		if err == nil {
			ch.Note = "not installed"
		}
		return ch, err
	}
	if !ownedByCtxc(old) {
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

func (p pi) Status(o Options) (State, error) {
	path := p.path(o)
	st := State{Agent: p.Name(), Path: path}
	data, _, exists, err := readFile(path)
	switch {
	case err != nil:
		return st, err
	case !exists:
		return st, nil
	case !ownedByCtxc(data):
		st.Note = "a file ctxc did not write has ctxc's name"
		return st, nil
	}
	st.Installed = true
	st.Command = p.command(data)
	if !bytes.Equal(data, p.extension(o)) {
		st.Note = "written by another ctxc or with other arguments; ctxc hooks install pi updates it"
	}
	return st, nil
}

// command reads the executable and arguments back from an installed extension.
func (pi) command(data []byte) string {
	var exe string
	var args []string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "const CTXC: string = "); ok {
			json.Unmarshal([]byte(strings.TrimSuffix(v, ";")), &exe)
		}
		if v, ok := strings.CutPrefix(line, "const CTXC_ARGS: string[] = "); ok {
			json.Unmarshal([]byte(strings.TrimSuffix(v, ";")), &args)
		}
	}
	return strings.TrimSpace(shellQuote(exe) + " " + strings.Join(args, " "))
}

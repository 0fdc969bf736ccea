package hooks

import (
	_ "embed"
	"encoding/json"
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

// file is the extension as ctxc's own file.
func (p pi) file() ownedFile {
	return ownedFile{agent: p.Name(), header: piHeader, what: p.Place().What}
}

func (p pi) Install(o Options) (Change, error) { return p.file().install(p.path(o), p.extension(o), o) }

func (p pi) Uninstall(o Options) (Change, error) { return p.file().uninstall(p.path(o), o) }

func (p pi) Status(o Options) (State, error) {
	return p.file().status(p.path(o), sameAs(p.extension(o)), p.command)
}

// command reads the executable and arguments back from an installed extension.
func (pi) command(data []byte) string {
	exe, args := templateCommand(data)
	return strings.TrimSpace(shellQuote(exe) + " " + strings.Join(args, " "))
}

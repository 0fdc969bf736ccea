package hooks

import (
	_ "embed"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// opencode installs ctxc's plugin, ctxc-compact.ts, in opencode's global plugin folder
// ($XDG_CONFIG_HOME/opencode/plugin/, default ~/.config/opencode/plugin/, or Options.Path),
// which opencode loads at start ({plugin,plugins}/*.{ts,js} of its configuration folders). The
// plugin runs `ctxc hook opencode` before opencode summarizes (the ledger goes to its
// summarizer) and after (what the summary lost goes back as a message after it). The file is
// ctxc's own, as pi's extension is. Kilo Code's CLI, opencode's descendant, loads the same
// plugin from its own folder (~/.config/kilo/plugin/) and calls the same hooks.
type opencode struct {
	name  string // the agent
	dir   string // its folders' name under the XDG folders, and its store's (DIR.db)
	dbEnv string // the variable that names another store
}

var (
	opencodeAgent = opencode{name: agent.Opencode, dir: "opencode", dbEnv: "OPENCODE_DB"}
	kiloAgent     = opencode{name: agent.Kilo, dir: "kilo", dbEnv: "KILO_DB"}
)

//go:embed opencode_plugin.ts
var opencodeTemplate string

// OpencodeFile is the name of ctxc's plugin file.
const OpencodeFile = "ctxc-compact.ts"

// header is the first line of the file ctxc writes.
func (p opencode) header() string {
	return "// Installed by ctxc (ctxc hooks install " + p.name + "); ctxc hooks uninstall " + p.name + " removes it.\n"
}

func (p opencode) Name() string { return p.name }

func (opencode) Place() Place { return Place{What: "ctxc's plugin"} }

func (p opencode) path(o Options) string {
	if o.Path != "" {
		return filepath.Join(o.Path, OpencodeFile)
	}
	config := o.ConfigHome
	if config == "" || !filepath.IsAbs(config) {
		config = filepath.Join(o.Home, ".config")
	}
	return filepath.Join(config, p.dir, "plugin", OpencodeFile)
}

// plugin is the file's content for o: the template with the executable, the arguments of
// `ctxc hook AGENT`, the agent's name and the variable that names its store.
func (p opencode) plugin(o Options) []byte {
	exe, _ := json.Marshal(o.Ctxc)
	args := append([]string{}, o.Args...)
	if o.Memory != "" {
		args = append(args, "--memory", o.Memory)
	}
	arr, _ := json.Marshal(args)
	name, _ := json.Marshal(p.dir)
	env, _ := json.Marshal(p.dbEnv)
	r := strings.NewReplacer("__CTXC_ARGS__", string(arr), "__CTXC_AGENT__", string(name), "__CTXC_DB_ENV__", string(env),
		"__CTXC__", string(exe))
	return []byte(p.header() + r.Replace(opencodeTemplate))
}

func (p opencode) file() ownedFile {
	return ownedFile{agent: p.Name(), header: p.header(), what: p.Place().What}
}

func (p opencode) Install(o Options) (Change, error) {
	return p.file().install(p.path(o), p.plugin(o), o)
}

func (p opencode) Uninstall(o Options) (Change, error) { return p.file().uninstall(p.path(o), o) }

func (p opencode) Status(o Options) (State, error) {
	return p.file().status(p.path(o), sameAs(p.plugin(o)), func(data []byte) string {
		exe, args := templateCommand(data)
		return strings.TrimSpace(strings.Join(append([]string{shellQuote(exe), "hook", p.Name()}, quoteAll(args)...), " "))
	})
}

// templateCommand reads the executable and arguments back from an installed extension or
// plugin (its CTXC and CTXC_ARGS constants).
func templateCommand(data []byte) (exe string, args []string) {
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "const CTXC: string = "); ok {
			json.Unmarshal([]byte(strings.TrimSuffix(v, ";")), &exe)
		}
		if v, ok := strings.CutPrefix(line, "const CTXC_ARGS: string[] = "); ok {
			json.Unmarshal([]byte(strings.TrimSuffix(v, ";")), &args)
		}
	}
	return exe, args
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return out
}

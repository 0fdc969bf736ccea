package hooks

import (
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

func (c cline) file() ownedFile {
	return ownedFile{agent: c.Name(), header: clineHeader, what: c.Place().What, second: true, executable: true}
}

func (c cline) Install(o Options) (Change, error) { return c.file().install(c.path(o), c.script(o), o) }

func (c cline) Uninstall(o Options) (Change, error) { return c.file().uninstall(c.path(o), o) }

func (c cline) Status(o Options) (State, error) {
	// Cline's file is the same whatever arguments it was installed with, as long as this ctxc
	// runs it: status without --budget does not call it another's.
	sameCtxc := func(data []byte) bool {
		exe, _ := firstWord(clineCommand(data))
		return exe == o.Ctxc
	}
	return c.file().status(c.path(o), sameCtxc, clineCommand)
}

// clineCommand is the command ctxc's hook file runs.
func clineCommand(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		if cmd, ok := strings.CutPrefix(line, "exec "); ok {
			return cmd
		}
	}
	return ""
}

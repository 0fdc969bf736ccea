package hooks

import (
	"os"

	"github.com/ctxc/ctxc/internal/agent"
)

// claudeCode installs a SessionStart hook with matcher "compact" in Claude Code's settings
// (~/.claude/settings.json, or a project's .claude/settings.json given as Options.Path). Claude
// Code runs it right after each compaction, manual or automatic, and adds what it prints as
// additionalContext to the context of the next request.
//
// Backups: before each change the file's previous content is copied to settings.json.ctxc-backup
// (replacing an older backup), so the backup is always the file as it was just before ctxc's
// last change. A file ctxc creates has no backup; uninstalling removes it when nothing but ctxc's
// entry was in it (no backup beside it, an empty object left), and gives a file the very bytes of
// its backup when what is left means the same.
type claudeCode struct{}

func (claudeCode) Name() string { return agent.ClaudeCode }

func (claudeCode) Place() Place {
	return Place{Settings: true, What: "ctxc's SessionStart(compact) hook"}
}

func (c claudeCode) path(o Options) string { return defaultPath(o, ".claude", "settings.json") }

func (c claudeCode) Install(o Options) (Change, error) {
	return installJSON(c.Name(), c.path(o), o, ctxcHandler(hookCommand(o, c.Name())))
}

func (c claudeCode) Uninstall(o Options) (Change, error) {
	return uninstallJSON(c.Name(), c.path(o), o)
}

func (c claudeCode) Status(o Options) (State, error) {
	return statusJSON(c.Name(), c.path(o), o)
}

// installJSON merges ctxc's hook into a settings-shaped file and writes it.
func installJSON(agent, path string, o Options, h hookHandler) (Change, error) {
	ch := Change{Agent: agent, Path: path}
	old, mode, exists, err := readFile(path)
	if err != nil {
		return ch, err
	}
	out, changed, err := mergeHook(path, old, agent, o.Ctxc, h)
	if err != nil || !changed {
		if err == nil {
			ch.Note = "already installed"
		}
		return ch, err
	}
	if len(out) > 0 && out[len(out)-1] != '\n' && !exists {
		out = append(out, '\n')
	}
	ch.Changed = true
	if o.DryRun {
		ch.Preview = string(out)
		return ch, nil
	}
	ch.Backup, err = writeFile(path, old, mode, exists, out, true)
	return ch, err
}

// uninstallJSON removes ctxc's hook from a settings-shaped file.
func uninstallJSON(agent, path string, o Options) (Change, error) {
	ch := Change{Agent: agent, Path: path}
	old, mode, exists, err := readFile(path)
	if err != nil || !exists {
		if err == nil {
			ch.Note = "no such file"
		}
		return ch, err
	}
	out, changed, err := removeHook(path, old, agent, o.Ctxc)
	if err != nil || !changed {
		if err == nil {
			ch.Note = "not installed"
		}
		return ch, err
	}
	ch.Changed = true
	created := createdByCtxc(path, isEmptyObject(out))
	if created {
		ch.Note = "the file was ctxc's: removed"
	}
	if o.DryRun {
		ch.Preview = string(out)
		return ch, nil
	}
	if created {
		return ch, os.Remove(path)
	}
	if bak, ok := backupMeaning(path, out); ok {
		out = bak // what is left means the file as it was before install: its very bytes
	}
	ch.Backup, err = writeFile(path, old, mode, exists, out, true)
	return ch, err
}

// statusJSON reports ctxc's hook in a settings-shaped file.
func statusJSON(agent, path string, o Options) (State, error) {
	st := State{Agent: agent, Path: path}
	data, _, exists, err := readFile(path)
	if err != nil || !exists {
		if err == nil {
			st.Note = "no such file"
		}
		return st, err
	}
	data, root, err := parseObject(path, data)
	if err != nil {
		return st, err
	}
	_, start, err := sessionStart(path, root)
	if err != nil {
		return st, err
	}
	if f := findCtxc(data, start, agent, o.Ctxc); len(f) > 0 {
		st.Installed, st.Command = true, f[0].command
	}
	return st, nil
}

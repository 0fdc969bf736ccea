// Package hooks installs, removes and reports ctxc's hooks in each agent's own configuration:
// a SessionStart(compact) command hook in Claude Code's settings.json and in Codex's
// hooks.json (with the trust entry Codex requires in config.toml), an extension file in pi's
// extensions directory, a plugin file in opencode's (and Kilo's) plugin directory, and a
// PostToolUse hook file in Cline's hooks folder. Edits keep everything else in those files as
// it was.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// Options say where and what to install.
type Options struct {
	Path string // claude-code: the settings file; pi: the extensions directory; codex: CODEX_HOME; opencode, kilo: the plugin directory; cline: its hooks folder; "" = the agent's default under Home
	Home string // the user's home (tests set it)
	// ConfigHome is $XDG_CONFIG_HOME ("" or relative: ~/.config), where opencode's folder is.
	ConfigHome string
	Ctxc       string   // the ctxc executable the hook runs (absolute path)
	Args       []string // extra arguments for the hook command (e.g. "--budget", "2000")
	// Memory, when set, is the memory file the hook merges the session's memory into before each
	// compaction (relative: from the session's folder).
	Memory string
	DryRun bool
}

// Change is what an install or uninstall did (or, with DryRun, would do).
type Change struct {
	Agent   string `json:"agent"`
	Path    string `json:"path"`
	Backup  string `json:"backup,omitempty"`
	Changed bool   `json:"changed"`
	Note    string `json:"note,omitempty"`
	// Preview is the new content of the file(s), filled with DryRun only.
	Preview string `json:"preview,omitempty"`
}

// State is whether ctxc's hook is installed for an agent.
type State struct {
	Agent     string `json:"agent"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"`
	Command   string `json:"command,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Place is where an agent's hook goes, as the command line names it, and what the hook is.
type Place struct {
	Settings bool   // a settings file, which --settings FILE names; else a folder, --dir DIR
	Env      string // the environment variable that moves the agent's folder ("": none read)
	What     string // what ctxc installs there, as the messages name it
}

// PlaceNames are the names of the agents whose hook goes in a settings file (settings true) or
// in a folder (false), in All's order.
func PlaceNames(settings bool) []string {
	var out []string
	for _, a := range agents {
		if a.Place().Settings == settings {
			out = append(out, a.Name())
		}
	}
	return out
}

// Agent is one agent's installer.
type Agent interface {
	Name() string
	Place() Place
	Install(Options) (Change, error)
	Uninstall(Options) (Change, error)
	Status(Options) (State, error)
}

var agents = []Agent{claudeCode{}, codex{}, pi{}, opencodeAgent, kiloAgent, cline{}}

// All returns every agent ctxc installs hooks for.
func All() []Agent { return append([]Agent(nil), agents...) }

// Names are the agents' names, for messages and completion.
func Names() []string {
	var n []string
	for _, a := range agents {
		n = append(n, a.Name())
	}
	return n
}

// UnknownAgentError is an agent name ctxc has no installer for.
type UnknownAgentError struct{ Name string }

func (e *UnknownAgentError) Error() string {
	return fmt.Sprintf("unknown agent %q (one of: %s)", e.Name, strings.Join(Names(), ", "))
}

// For returns the installer of the named agent.
func For(name string) (Agent, error) {
	for _, a := range agents {
		if a.Name() == name {
			return a, nil
		}
	}
	return nil, &UnknownAgentError{Name: name}
}

// FileError is an agent's file that ctxc cannot edit safely (not JSON, not an object, a
// "hooks" that is not an object...). Nothing was written.
type FileError struct {
	Path string
	Msg  string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Msg }

// ConflictError is a file in ctxc's way that ctxc did not write (pi's extension name taken).
type ConflictError struct {
	Path string
	Msg  string
}

func (e *ConflictError) Error() string { return e.Path + ": " + e.Msg }

// BackupSuffix names the copy of a file kept before ctxc changes it.
const BackupSuffix = ".ctxc-backup"

// hookCommand is the shell command line an agent runs: ctxc's path (quoted only when needed),
// "hook", the agent's name, and the extra arguments.
func hookCommand(o Options, agent string) string {
	words := []string{shellQuote(o.Ctxc), "hook", agent}
	for _, a := range o.Args {
		words = append(words, shellQuote(a))
	}
	if o.Memory != "" {
		words = append(words, "--memory", shellQuote(o.Memory))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain path characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.,:+@%=-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstWord splits a command line into its first shell word (unquoted) and the rest.
func firstWord(cmd string) (string, string) {
	cmd = strings.TrimLeft(cmd, " \t")
	var w strings.Builder
	i := 0
	for i < len(cmd) && cmd[i] != ' ' && cmd[i] != '\t' {
		switch c := cmd[i]; c {
		case '\'', '"':
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				return w.String() + cmd[i+1:], ""
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i += j + 2
		case '\\':
			if i+1 < len(cmd) {
				w.WriteByte(cmd[i+1])
			}
			i += 2
		default:
			w.WriteByte(c)
			i++
		}
	}
	return w.String(), cmd[i:]
}

// isCtxcCommand reports whether cmd is ctxc's hook for agent: an executable named ctxc (or
// the very executable given as self) followed by "hook AGENT".
func isCtxcCommand(cmd, agent, self string) bool {
	exe, rest := firstWord(cmd)
	base := strings.TrimSuffix(filepath.Base(exe), ".exe")
	if base != "ctxc" && (self == "" || exe != self) {
		return false
	}
	fields := strings.Fields(rest)
	return len(fields) >= 2 && fields[0] == "hook" && fields[1] == agent
}

// readFile returns a file's bytes and mode; a missing file is no error (exists false).
func readFile(path string) (data []byte, mode fs.FileMode, exists bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, false, &FileError{Path: path, Msg: "not a regular file"}
	}
	data, err = os.ReadFile(path)
	return data, info.Mode().Perm(), true, err
}

// writeFile replaces path's content atomically, after copying its old content to the
// backup (when it existed and backup is set). The file keeps its permissions; a symbolic link
// (dotfiles kept in a repository) keeps pointing where it did and its target is written.
func writeFile(path string, old []byte, mode fs.FileMode, exists bool, data []byte, backup bool) (string, error) {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	if !exists {
		mode = 0o644
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
	}
	var bak string
	if exists && backup {
		bak = path + BackupSuffix
		if err := os.WriteFile(bak, old, mode); err != nil {
			return "", fmt.Errorf("writing the backup: %w", err)
		}
		os.Chmod(bak, mode) // an existing backup keeps the original's permissions too
	}
	err := safewrite.WriteAtomic(target, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return bak, err
	}
	return bak, os.Chmod(target, mode)
}

// createdByCtxc reports whether the file at path is one ctxc created when it installed its hook,
// and holds nothing else now (empty: what is left once ctxc's entries are removed is empty):
// install backs up every file that existed, so a file without a backup beside it was created
// by ctxc. A symbolic link is a user's.
func createdByCtxc(path string, empty bool) bool {
	if !empty {
		return false
	}
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	_, err := os.Lstat(path + BackupSuffix)
	return errors.Is(err, fs.ErrNotExist)
}

// isEmptyObject reports whether data is a JSON object with no member (or blank).
func isEmptyObject(data []byte) bool {
	var v map[string]json.RawMessage
	t := bytes.TrimSpace(data)
	return len(t) == 0 || (json.Unmarshal(t, &v) == nil && len(v) == 0)
}

// backupMeaning returns the backup of path when it means what out means (the same JSON value,
// numbers as written; a blank backup and an empty object alike): the file as it was before ctxc
// changed it.
func backupMeaning(path string, out []byte) ([]byte, bool) {
	bak, err := os.ReadFile(path + BackupSuffix)
	if err != nil {
		return nil, false
	}
	if len(bytes.TrimSpace(bak)) == 0 {
		return bak, isEmptyObject(out)
	}
	a, aerr := decodeJSON(bak)
	b, berr := decodeJSON(out)
	return bak, aerr == nil && berr == nil && reflect.DeepEqual(a, b)
}

func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// defaultPath is opts.Path, or the given path under the home.
func defaultPath(o Options, elem ...string) string {
	if o.Path != "" {
		return o.Path
	}
	return filepath.Join(append([]string{o.Home}, elem...)...)
}

package agent

import (
	"path/filepath"
	"strings"
	"time"
)

// Handoff is what `ctxc handoff` needs of an agent to hand it a conversation as a new session
// of its own: nil for an agent ctxc writes no new session of.
type Handoff struct {
	// Window is the context window of the model the agent runs by default, in tokens: the
	// budget a handed-off context is fitted to when none is given.
	Window int
	// SessionPath is where the agent keeps a new session id started in folder cwd at now, as
	// the agent itself names it: env reads the agent's environment variables (its home folder
	// moved), home is the user's home folder.
	SessionPath func(env func(string) string, home, cwd, id string, now time.Time) string
	// Tools are the agent's own tools, by what they do, with the argument key of each field:
	// a call handed over takes the target's tool of its kind.
	Tools map[CallKind]ToolShape
}

// CallKind is what a tool call does, by which the agents' tools are alike: a call handed to
// another agent is made a call of that agent's tool of the same kind.
type CallKind uint8

const (
	CallShell  CallKind = iota + 1 // runs a command: command
	CallRead                       // reads a file: path
	CallWrite                      // writes a whole file: path, content
	CallEdit                       // replaces a string in a file: path, old, new
	CallSearch                     // searches files for a pattern: pattern, path
)

// The fields of a tool call, by what they hold.
const (
	FieldCommand = "command"
	FieldPath    = "path"
	FieldContent = "content"
	FieldOld     = "old"
	FieldNew     = "new"
	FieldPattern = "pattern"
)

// KindFields are the fields a kind of tool takes, the first the one it cannot do without.
var KindFields = map[CallKind][]string{
	CallShell:  {FieldCommand},
	CallRead:   {FieldPath},
	CallWrite:  {FieldPath, FieldContent},
	CallEdit:   {FieldPath, FieldOld, FieldNew},
	CallSearch: {FieldPattern, FieldPath},
}

// ToolShape is one agent's tool of a kind: its name and the argument key of each field.
// Argv says its command is an argument vector (a shell command goes as ["bash", "-lc", it]).
type ToolShape struct {
	Name string
	Keys map[string]string
	Argv bool
}

// shape is a ToolShape of name with fields and keys in pairs.
func shape(name string, pairs ...string) ToolShape {
	s := ToolShape{Name: name, Keys: map[string]string{}}
	for i := 0; i+1 < len(pairs); i += 2 {
		s.Keys[pairs[i]] = pairs[i+1]
	}
	return s
}

// homeDir is the agent's folder: the value of its environment variable env when set, else the
// path def under the user's home.
func homeDir(getenv func(string) string, home, env string, def ...string) string {
	if v := getenv(env); v != "" {
		return v
	}
	return filepath.Join(append([]string{home}, def...)...)
}

// nonAlnumDashes is s with every character but an ASCII letter or digit made "-".
func nonAlnumDashes(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, s)
}

package agent

import (
	"strings"
	"sync"
)

// ToolKind is what a tool's calls do to files.
type ToolKind uint8

// Tool kinds.
const (
	OtherTool ToolKind = iota
	EditTool           // writes the file at one of PathKeys
	ReadTool           // reads the file at one of PathKeys
	PatchTool          // applies a patch that names its files
	ShellTool          // runs a shell command
)

// toolKinds maps every registered agent's tool names, lower-cased, to their kind: a session's
// calls are judged by the names of every agent, since a message list may come from any of them.
var toolKinds = sync.OnceValue(func() map[string]ToolKind {
	m := map[string]ToolKind{}
	for _, a := range All() {
		for kind, names := range map[ToolKind][]string{EditTool: a.Tools.Edit, ReadTool: a.Tools.Read,
			PatchTool: a.Tools.Patch, ShellTool: a.Tools.Shell} {
			for _, n := range names {
				m[strings.ToLower(n)] = kind
			}
		}
	}
	return m
})

// KindOf says what a tool's calls do to files, from its name as an agent wrote it: the names are
// matched whole (ignoring case), because agents write them exactly (Claude Code's "Edit",
// Codex's "shell", Gemini CLI's "read_file"), and a part of a name ("command" in
// "SlashCommand") says nothing of what the tool does.
func KindOf(name string) ToolKind {
	return toolKinds()[strings.ToLower(name)]
}

// PathKeys are the argument keys that hold the file a call works on, of every agent, in the
// order they are tried.
var PathKeys = sync.OnceValue(func() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range All() {
		for _, k := range a.Tools.PathKeys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
})

package handoff

import (
	"encoding/json"
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// A tool call handed to another agent takes the target's own tool of the same kind when it has
// one (its name, its argument keys), so that the model resumed there reads calls of the tools it
// is given; a call of any other tool keeps its name and arguments (every target takes it in its
// history).

// toolKind is what a tool does, as the agents' tools are alike.
type toolKind uint8

const (
	shellTool  toolKind = iota + 1 // runs a command: command
	readTool                       // reads a file: path
	writeTool                      // writes a whole file: path, content
	editTool                       // replaces a string in a file: path, old, new
	searchTool                     // searches files for a pattern: pattern, path
)

// The fields of a call a kind of tool takes, the first the one it cannot do without.
const (
	fieldCommand = "command"
	fieldPath    = "path"
	fieldContent = "content"
	fieldOld     = "old"
	fieldNew     = "new"
	fieldPattern = "pattern"
)

var kindFields = map[toolKind][]string{
	shellTool:  {fieldCommand},
	readTool:   {fieldPath},
	writeTool:  {fieldPath, fieldContent},
	editTool:   {fieldPath, fieldOld, fieldNew},
	searchTool: {fieldPattern, fieldPath},
}

// toolShape is one agent's tool of a kind: its name and the argument key of each field.
type toolShape struct {
	name string
	keys map[string]string
}

func shape(name string, keys ...string) toolShape {
	s := toolShape{name: name, keys: map[string]string{}}
	for i := 0; i+1 < len(keys); i += 2 {
		s.keys[keys[i]] = keys[i+1]
	}
	return s
}

// codexShell is Codex's shell tool: its command an argv, a shell command as ["bash", "-lc", it].
const codexShell = "shell"

// agentTools are each target's tools by kind (the versions the real agents of the tests run).
// Codex has a shell only: its edits are patches (apply_patch), which no other agent's call is.
func agentTools(f transcript.Format) map[toolKind]toolShape {
	switch f {
	case transcript.FormatClaude:
		return map[toolKind]toolShape{
			shellTool:  shape("Bash", fieldCommand, "command"),
			readTool:   shape("Read", fieldPath, "file_path"),
			writeTool:  shape("Write", fieldPath, "file_path", fieldContent, "content"),
			editTool:   shape("Edit", fieldPath, "file_path", fieldOld, "old_string", fieldNew, "new_string"),
			searchTool: shape("Grep", fieldPattern, "pattern", fieldPath, "path"),
		}
	case transcript.FormatCodex:
		return map[toolKind]toolShape{shellTool: shape(codexShell, fieldCommand, "command")}
	case transcript.FormatPi:
		return map[toolKind]toolShape{
			shellTool:  shape("bash", fieldCommand, "command"),
			readTool:   shape("read", fieldPath, "path"),
			writeTool:  shape("write", fieldPath, "path", fieldContent, "content"),
			editTool:   shape("edit", fieldPath, "path", fieldOld, "oldText", fieldNew, "newText"),
			searchTool: shape("grep", fieldPattern, "pattern", fieldPath, "path"),
		}
	case transcript.FormatGemini:
		return map[toolKind]toolShape{
			shellTool:  shape("run_shell_command", fieldCommand, "command"),
			readTool:   shape("read_file", fieldPath, "file_path"),
			writeTool:  shape("write_file", fieldPath, "file_path", fieldContent, "content"),
			editTool:   shape("replace", fieldPath, "file_path", fieldOld, "old_string", fieldNew, "new_string"),
			searchTool: shape("grep_search", fieldPattern, "pattern", fieldPath, "dir_path"),
		}
	case transcript.FormatQwen:
		return map[toolKind]toolShape{
			shellTool:  shape("run_shell_command", fieldCommand, "command"),
			readTool:   shape("read_file", fieldPath, "file_path"),
			writeTool:  shape("write_file", fieldPath, "file_path", fieldContent, "content"),
			editTool:   shape("edit", fieldPath, "file_path", fieldOld, "old_string", fieldNew, "new_string"),
			searchTool: shape("grep_search", fieldPattern, "pattern", fieldPath, "path"),
		}
	case transcript.FormatCopilot:
		return map[toolKind]toolShape{
			shellTool:  shape("bash", fieldCommand, "command"),
			readTool:   shape("view", fieldPath, "path"),
			writeTool:  shape("create", fieldPath, "path", fieldContent, "file_text"),
			editTool:   shape("edit", fieldPath, "path", fieldOld, "old_str", fieldNew, "new_str"),
			searchTool: shape("grep", fieldPattern, "pattern", fieldPath, "path"),
		}
	}
	return nil
}

// mapTools renames the calls of msgs (written by agent from) that have an equivalent among the
// tools of agent to, with their arguments under the target's keys, and the results that answer
// them; the messages are copies.
func mapTools(msgs []transcript.Message, from, to transcript.Format) []transcript.Message {
	src, dst := agentTools(from), agentTools(to)
	if from == to || src == nil || dst == nil {
		return msgs
	}
	renamed := map[string]string{} // call id → the target's tool name
	out := make([]transcript.Message, len(msgs))
	for i, m := range msgs {
		bs := make([]transcript.Block, len(m.Blocks))
		for j, b := range m.Blocks {
			switch b.Kind {
			case transcript.BlockToolCall:
				if name, args, ok := mapCall(b.Name, b.Args, src, dst); ok {
					b.Name, b.Args = name, args
					renamed[b.ID] = name
				}
			case transcript.BlockToolResult:
				if name, ok := renamed[b.ID]; ok {
					b.Name = name
				}
			}
			bs[j] = b
		}
		m.Blocks = bs
		out[i] = m
	}
	return out
}

// mapCall is a call of the source's tool name with args as the target's tool of its kind: ok is
// false when the target has none, or the call lacks what the kind cannot do without.
func mapCall(name, args string, src, dst map[toolKind]toolShape) (string, string, bool) {
	for kind, s := range src {
		if s.name != name {
			continue
		}
		t, ok := dst[kind]
		if !ok {
			return "", "", false
		}
		fields, ok := callFields(kind, s, args)
		if !ok {
			return "", "", false
		}
		return t.name, renderArgs(kind, t, fields), true
	}
	return "", "", false
}

// callFields reads the fields of a call from its arguments object under the source's keys.
func callFields(kind toolKind, s toolShape, args string) (map[string]any, bool) {
	if !jsonl.Valid([]byte(args)) {
		return nil, false
	}
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return nil, false
	}
	fields := map[string]any{}
	for _, f := range kindFields[kind] {
		if v, ok := obj[s.keys[f]]; ok {
			fields[f] = v
		}
	}
	if s.name == codexShell {
		fields[fieldCommand] = argvCommand(fields[fieldCommand])
	}
	first, ok := fields[kindFields[kind][0]].(string)
	return fields, ok && first != ""
}

// argvCommand is Codex's argv as a shell command: the script of ["bash", "-lc", script], else
// the words joined.
func argvCommand(v any) any {
	argv, ok := v.([]any)
	if !ok {
		return v
	}
	var words []string
	for _, a := range argv {
		s, ok := a.(string)
		if !ok {
			return nil
		}
		words = append(words, s)
	}
	if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") {
		return words[2]
	}
	return strings.Join(words, " ")
}

// renderArgs writes the fields under the target's keys.
func renderArgs(kind toolKind, t toolShape, fields map[string]any) string {
	obj := map[string]any{}
	for _, f := range kindFields[kind] {
		if v, ok := fields[f]; ok {
			obj[t.keys[f]] = v
		}
	}
	if t.name == codexShell {
		obj["command"] = []any{"bash", "-lc", fields[fieldCommand]}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

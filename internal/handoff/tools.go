package handoff

import (
	"encoding/json"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// A tool call handed to another agent takes the target's own tool of the same kind when it has
// one (its name, its argument keys), so that the model resumed there reads calls of the tools it
// is given; a call of any other tool keeps its name and arguments (every target takes it in its
// history).

// toolsOf are the tools of agent f by kind (the registry's, the versions the real agents of
// the tests run; nil for an agent that is no target).
func toolsOf(f transcript.Format) map[agent.CallKind]agent.ToolShape {
	if h := f.Agent().Handoff; h != nil {
		return h.Tools
	}
	return nil
}

// mapTools renames the calls of msgs (written by agent from) that have an equivalent among the
// tools of agent to, with their arguments under the target's keys, and the results that answer
// them; the messages are copies.
func mapTools(msgs []transcript.Message, from, to transcript.Format) []transcript.Message {
	src, dst := toolsOf(from), toolsOf(to)
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
func mapCall(name, args string, src, dst map[agent.CallKind]agent.ToolShape) (string, string, bool) {
	for kind, s := range src {
		if s.Name != name {
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
		return t.Name, renderArgs(kind, t, fields), true
	}
	return "", "", false
}

// callFields reads the fields of a call from its arguments object under the source's keys.
func callFields(kind agent.CallKind, s agent.ToolShape, args string) (map[string]any, bool) {
	if !jsonl.Valid([]byte(args)) {
		return nil, false
	}
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return nil, false
	}
	fields := map[string]any{}
	for _, f := range agent.KindFields[kind] {
		if v, ok := obj[s.Keys[f]]; ok {
			fields[f] = v
		}
	}
	if s.Argv {
		fields[agent.FieldCommand] = argvCommand(fields[agent.FieldCommand])
	}
	first, ok := fields[agent.KindFields[kind][0]].(string)
	return fields, ok && first != ""
}

// argvCommand is an argument vector (Codex's) as a shell command: the script of ["bash", "-lc", script], else
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
func renderArgs(kind agent.CallKind, t agent.ToolShape, fields map[string]any) string {
	obj := map[string]any{}
	for _, f := range agent.KindFields[kind] {
		if v, ok := fields[f]; ok {
			obj[t.Keys[f]] = v
		}
	}
	if t.Argv {
		obj[t.Keys[agent.FieldCommand]] = []any{"bash", "-lc", fields[agent.FieldCommand]}
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

package hooks

import (
	"bytes"
	"encoding/json"
)

// Claude Code's settings.json and Codex's hooks.json share one shape:
//
//	{"hooks": {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// ctxc adds a group of its own (never a hook inside a user's group) and recognizes its hook by
// the command (isCtxcCommand).

// hookTimeout is the seconds an agent gives ctxc's hook.
const hookTimeout = 30

type hookHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
	// AdditionalContextLimit is Codex's cap, in tokens, on what the hook adds (Codex's default,
	// 2,500, when absent); Claude Code has none.
	AdditionalContextLimit int `json:"additionalContextLimit,omitempty"`
}

type hookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookHandler `json:"hooks"`
}

func ctxcHandler(command string) hookHandler {
	return hookHandler{Type: "command", Command: command, Timeout: hookTimeout}
}

// found is ctxc's hook in a parsed file: group and handler indexes in SessionStart, the
// command's value node, and the command.
type found struct {
	group, handler int
	value          *node
	command        string
	limit          int
}

// parseObject checks that data is a JSON object (an empty file counts as {}) and parses it.
func parseObject(path string, data []byte) ([]byte, *node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n}\n")
	}
	if !json.Valid(data) {
		return nil, nil, &FileError{Path: path, Msg: "not valid JSON"}
	}
	root := parseSpans(data)
	if root.kind != '{' {
		return nil, nil, &FileError{Path: path, Msg: "not a JSON object"}
	}
	return data, root, nil
}

// sessionStart returns the "hooks" object and its "SessionStart" array (nil when absent), or
// an error when either has another type.
func sessionStart(path string, root *node) (hooks, start *node, err error) {
	hooks, _ = root.member("hooks")
	if hooks == nil {
		return nil, nil, nil
	}
	if hooks.kind != '{' {
		return nil, nil, &FileError{Path: path, Msg: `"hooks" is not an object`}
	}
	start, _ = hooks.member("SessionStart")
	if start != nil && start.kind != '[' {
		return nil, nil, &FileError{Path: path, Msg: `"hooks"."SessionStart" is not an array`}
	}
	return hooks, start, nil
}

// findCtxc lists ctxc's hooks for agent in a SessionStart array, in order.
func findCtxc(data []byte, start *node, agent, self string) []found {
	if start == nil {
		return nil
	}
	var out []found
	for gi, g := range start.kids {
		hs, _ := g.member("hooks")
		if hs == nil || hs.kind != '[' {
			continue
		}
		for hi, h := range hs.kids {
			v, _ := h.member("command")
			if v == nil || v.kind != '"' {
				continue
			}
			var cmd string
			json.Unmarshal(data[v.start:v.end], &cmd)
			if isCtxcCommand(cmd, agent, self) {
				f := found{group: gi, handler: hi, value: v, command: cmd}
				if l, _ := h.member("additionalContextLimit"); l != nil {
					json.Unmarshal(data[l.start:l.end], &f.limit)
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// mergeHook adds ctxc's SessionStart(compact) group with handler h, or updates ctxc's hook
// already there: its command in place, or, when more differs, by a new group in place of the
// old ones. changed is false when the file already says exactly that.
func mergeHook(path string, data []byte, agent, self string, h hookHandler) (out []byte, changed bool, err error) {
	data, root, err := parseObject(path, data)
	if err != nil {
		return nil, false, err
	}
	hooks, start, err := sessionStart(path, root)
	if err != nil {
		return nil, false, err
	}
	if f := findCtxc(data, start, agent, self); len(f) == 1 && f[0].limit == h.AdditionalContextLimit {
		if f[0].command == h.Command {
			return data, false, nil
		}
		v, _ := marshalNoEscape(h.Command, "", "")
		out = append(append(append([]byte{}, data[:f[0].value.start]...), v...), data[f[0].value.end:]...)
		return out, true, nil
	} else if len(f) > 0 {
		if data, _, err = removeHook(path, data, agent, self); err != nil {
			return nil, false, err
		}
		out, _, err = mergeHook(path, data, agent, self, h)
		return out, true, err
	}
	st := detectStyle(data)
	if st.compact && len(root.kids) == 0 {
		st = style{unit: "  "} // a new or empty settings file is written the way people read it
	}
	group := hookGroup{Matcher: "compact", Hooks: []hookHandler{h}}
	switch {
	case hooks == nil:
		v := map[string][]hookGroup{"SessionStart": {group}}
		out = appendItem(data, root, st, func(ind string) []byte { return memberBytes("hooks", v, st, ind) })
	case start == nil:
		v := []hookGroup{group}
		out = appendItem(data, hooks, st, func(ind string) []byte { return memberBytes("SessionStart", v, st, ind) })
	default:
		out = appendItem(data, start, st, func(ind string) []byte { return render(group, st, ind) })
	}
	return out, true, nil
}

// removeHook removes every ctxc hook for agent; then a group that this left without hooks, a
// SessionStart left empty and a "hooks" left empty. Other empty groups or arrays stay.
func removeHook(path string, data []byte, agent, self string) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return data, false, nil
	}
	data, root, err := parseObject(path, data)
	if err != nil {
		return nil, false, err
	}
	for {
		hooks, start, err := sessionStart(path, root)
		if err != nil {
			return nil, false, err
		}
		f := findCtxc(data, start, agent, self)
		if len(f) == 0 {
			return data, changed, nil
		}
		data = removeOne(data, root, hooks, start, f[len(f)-1])
		changed = true
		root = parseSpans(data)
	}
}

// removeOne removes one ctxc hook and the containers its removal emptied.
func removeOne(data []byte, root, hooks, start *node, f found) []byte {
	g := start.kids[f.group]
	hs, _ := g.member("hooks")
	if len(hs.kids) > 1 {
		return removeItem(data, hs, f.handler)
	}
	if len(start.kids) > 1 {
		return removeItem(data, start, f.group)
	}
	_, si := hooks.member("SessionStart")
	if len(hooks.kids) > 1 {
		return removeItem(data, hooks, si)
	}
	_, hi := root.member("hooks")
	return removeItem(data, root, hi)
}

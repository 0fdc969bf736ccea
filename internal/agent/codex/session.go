package codex

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
)

// Session renders a new Codex session from messages: a session_meta line under a fresh
// id, then one response_item per text, call and output, in order. System text goes as a
// developer message, as Codex records its own instructions.
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUIDv7(s.Now)
	now := conv.RFC3339ms(s.Now)
	meta, err := conv.Marshal(map[string]any{"timestamp": now, "type": "session_meta", "payload": map[string]any{
		"id": id, "timestamp": now, "cwd": s.Cwd, "originator": "codex_cli_rs", "cli_version": "0.169.0", "source": "cli"}})
	if err != nil {
		return conv.Written{}, r.Dropped, err
	}
	out := [][]byte{meta}
	for i := range ms {
		for _, it := range sessionItems(&ms[i], r) {
			rec, err := conv.Marshal(map[string]any{"timestamp": now, "type": "response_item", "payload": it})
			if err != nil {
				return conv.Written{}, r.Dropped, err
			}
			out = append(out, rec)
		}
	}
	if len(out) == 1 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.Dropped, nil
}

// sessionItems are the response items of one message: its text as one message item, each call
// and each output an item of its own, in the order of the blocks.
func sessionItems(m *conv.Message, r *conv.SessionRender) []map[string]any {
	role, kind := string(m.Role), "input_text"
	switch m.Role {
	case conv.RoleAssistant:
		kind = "output_text"
	case conv.RoleSystem, conv.RoleDeveloper:
		role = "developer"
	case conv.RoleTool:
		role = "user"
	}
	var out []map[string]any
	var text []map[string]string
	flush := func() {
		if len(text) > 0 {
			out = append(out, map[string]any{"type": "message", "role": role, "content": text})
			text = nil
		}
	}
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				text = append(text, map[string]string{"type": kind, "text": b.Text})
			}
		case conv.BlockToolCall:
			flush()
			out = append(out, map[string]any{"type": "function_call", "name": b.Name, "arguments": conv.CallArgsText(b.Args), "call_id": r.CallID("call_", b.ID)})
		case conv.BlockToolResult:
			flush()
			out = append(out, map[string]any{"type": "function_call_output", "call_id": r.CallID("call_", b.ID), "output": b.Text})
		}
	}
	flush()
	return out
}

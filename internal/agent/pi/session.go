package pi

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
)

// Session renders a new pi session from messages: a v3 header under a fresh id, then one
// message entry per message, each the child of the one before. Tool results are toolResult
// messages of their own (pi's shape); system and developer text becomes user text.
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUIDv7(s.Now)
	now := conv.RFC3339ms(s.Now)
	h, err := conv.Marshal(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": now, "cwd": s.Cwd})
	if err != nil {
		return conv.Written{}, r.Dropped, err
	}
	out := [][]byte{h}
	names := map[string]string{} // source call id → tool name
	parent := ""
	for i := range ms {
		for _, msg := range sessionMessages(&ms[i], r, names, s.Now.UnixMilli()) {
			eid := conv.NewHexID(8)
			e, err := conv.Marshal(map[string]any{"type": "message", "id": eid, "parentId": conv.ParentOrNil(parent), "timestamp": now, "message": msg})
			if err != nil {
				return conv.Written{}, r.Dropped, err
			}
			parent = eid
			out = append(out, e)
		}
	}
	if len(out) == 1 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.Dropped, nil
}

// EmptyResult is the text of a tool result that has none, in a new pi session: pi sends an
// empty result as "(see attached image)", which would mislead the model.
const EmptyResult = "(no output)"

// sessionMessages are the pi messages of one message: its tool results first, each a toolResult
// message, then its text and calls as one user or assistant message.
func sessionMessages(m *conv.Message, r *conv.SessionRender, names map[string]string, ms int64) []map[string]any {
	var out []map[string]any
	var content []map[string]any
	calls := false
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				content = append(content, map[string]any{"type": "text", "text": b.Text})
			}
		case conv.BlockToolCall:
			calls = true
			names[b.ID] = b.Name
			content = append(content, map[string]any{"type": "toolCall", "id": r.CallID("call_", b.ID), "name": b.Name, "arguments": conv.CallArgs(b.Args)})
		case conv.BlockToolResult:
			text := b.Text
			if strings.TrimSpace(text) == "" {
				text = EmptyResult
			}
			name := names[b.ID]
			if name == "" {
				name = b.Name
			}
			out = append(out, map[string]any{"role": "toolResult", "toolCallId": r.CallID("call_", b.ID), "toolName": name,
				"content": []map[string]string{{"type": "text", "text": text}}, "isError": b.IsError, "timestamp": ms})
		}
	}
	if len(content) == 0 {
		return out
	}
	if conv.UserOrAssistant(m.Role) == conv.RoleUser {
		return append(out, map[string]any{"role": "user", "content": content, "timestamp": ms})
	}
	stop := "stop"
	if calls {
		stop = "toolUse"
	}
	return append(out, map[string]any{"role": "assistant", "content": content, "api": "openai-completions", "provider": "ctxc", "model": "handoff",
		"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
			"cost": map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
		"stopReason": stop, "timestamp": ms})
}

package claude

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
)

// Session renders a new Claude Code session from messages: one record per message,
// chained by parentUuid under a fresh session id. Tool results go first in their user record,
// as the Messages API wants them; system and developer text becomes user text (Claude Code
// records only user and assistant messages).
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	for i := range ms {
		msg := sessionMessage(&ms[i], r)
		if msg == nil {
			continue
		}
		o := conv.NewObject()
		o.Set("parentUuid", conv.ParentOrNil(parent))
		o.Set("isSidechain", false)
		o.Set("userType", "external")
		o.Set("cwd", s.Cwd)
		o.Set("sessionId", id)
		o.Set("type", msg["role"])
		o.Set("message", msg)
		u := conv.NewUUID()
		o.Set("uuid", u)
		o.Set("timestamp", now)
		parent = u
		out = append(out, o.Encode())
	}
	if len(out) == 0 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: len(out), Session: id}, r.Dropped, nil
}

// sessionMessage is the message of one record: nil when nothing of m is left to send.
func sessionMessage(m *conv.Message, r *conv.SessionRender) map[string]any {
	var results, rest []any
	calls := false
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				rest = append(rest, map[string]any{"type": "text", "text": b.Text})
			}
		case conv.BlockToolCall:
			calls = true
			rest = append(rest, map[string]any{"type": "tool_use", "id": r.CallID("toolu_", b.ID), "name": b.Name, "input": conv.CallArgs(b.Args)})
		case conv.BlockToolResult:
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": r.CallID("toolu_", b.ID), "content": b.Text, "is_error": b.IsError})
		}
	}
	content := append(results, rest...)
	if len(content) == 0 {
		return nil
	}
	role := conv.UserOrAssistant(m.Role)
	if role == conv.RoleUser {
		return map[string]any{"role": "user", "content": content}
	}
	stop := "end_turn"
	if calls {
		stop = "tool_use"
	}
	return map[string]any{"id": "msg_ctxc_" + conv.NewHexID(24), "type": "message", "role": "assistant", "content": content, "stop_reason": stop}
}

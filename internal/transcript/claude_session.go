package transcript

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
)

// claudeSession renders a new Claude Code session from messages: one record per message,
// chained by parentUuid under a fresh session id. Tool results go first in their user record,
// as the Messages API wants them; system and developer text becomes user text (Claude Code
// records only user and assistant messages).
func claudeSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	for i := range ms {
		msg := claudeMessage(&ms[i], r)
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
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: len(out), Session: id}, r.dropped, nil
}

// claudeMessage is the message of one record: nil when nothing of m is left to send.
func claudeMessage(m *Message, r *sessionRender) map[string]any {
	var results, rest []any
	calls := false
	for _, b := range m.Blocks {
		switch b.Kind {
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				rest = append(rest, map[string]any{"type": "text", "text": b.Text})
			}
		case BlockToolCall:
			calls = true
			rest = append(rest, map[string]any{"type": "tool_use", "id": r.callID("toolu_", b.ID), "name": b.Name, "input": callArgs(b.Args)})
		case BlockToolResult:
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": r.callID("toolu_", b.ID), "content": b.Text, "is_error": b.IsError})
		}
	}
	content := append(results, rest...)
	if len(content) == 0 {
		return nil
	}
	role := userOrAssistant(m.Role)
	if role == RoleUser {
		return map[string]any{"role": "user", "content": content}
	}
	stop := "end_turn"
	if calls {
		stop = "tool_use"
	}
	return map[string]any{"id": "msg_ctxc_" + newHexID(24), "type": "message", "role": "assistant", "content": content, "stop_reason": stop}
}

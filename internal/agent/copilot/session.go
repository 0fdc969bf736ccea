package copilot

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/msglist"
)

// copilotVersion is the Copilot CLI version a new session's session.start names (the one its
// format was read from).
const copilotVersion = "1.0.102"

// Session writes a new Copilot CLI session: a session.start event (a fresh session id, the
// project's folder as its context), then one event per conversation item, each the child of the
// one before: a user.message per user text, an assistant.message per assistant message (its
// calls as toolRequests), a tool.execution_complete per result (a failed one as Copilot records
// a failed tool: its error's message). System and developer text becomes user text: Copilot
// rebuilds its own system prompt.
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	event := func(typ string, data map[string]any) error {
		e := conv.NewUUID()
		b, err := conv.Marshal(map[string]any{"type": typ, "data": data, "id": e, "timestamp": now, "parentId": conv.ParentOrNil(parent)})
		if err != nil {
			return err
		}
		parent = e
		out = append(out, b)
		return nil
	}
	if err := event("session.start", map[string]any{"sessionId": id, "version": 1, "producer": "copilot-agent",
		"copilotVersion": copilotVersion, "startTime": now, "context": map[string]any{"cwd": s.Cwd}}); err != nil {
		return conv.Written{}, r.Dropped, err
	}
	messages := 0
	for _, m := range r.FreshCalls(ms, "call_") {
		for _, ev := range messageEvents(&m) {
			if err := event(ev.typ, ev.data); err != nil {
				return conv.Written{}, r.Dropped, err
			}
			messages++
		}
	}
	if messages == 0 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: messages, Session: id}, r.Dropped, nil
}

type copilotEvent struct {
	typ  string
	data map[string]any
}

// messageEvents are the events of one message: its results first (they answer calls
// before it), then its text and calls.
func messageEvents(m *conv.Message) []copilotEvent {
	results, rest := msglist.SplitResults(*m)
	var out []copilotEvent
	for _, b := range results.Blocks {
		data := map[string]any{"toolCallId": b.ID, "success": !b.IsError}
		if b.IsError {
			data["error"] = map[string]string{"message": b.Text, "code": "failure"}
		} else {
			data["result"] = map[string]string{"content": b.Text}
		}
		out = append(out, copilotEvent{"tool.execution_complete", data})
	}
	var text []string
	var calls []map[string]any
	for _, b := range rest.Blocks {
		switch b.Kind {
		case conv.BlockText:
			if strings.TrimSpace(b.Text) != "" {
				text = append(text, b.Text)
			}
		case conv.BlockToolCall:
			calls = append(calls, map[string]any{"toolCallId": b.ID, "name": b.Name, "arguments": conv.CallArgs(b.Args)})
		}
	}
	content := strings.Join(text, "\n\n")
	switch {
	case m.Role == conv.RoleAssistant && (content != "" || len(calls) > 0):
		if calls == nil {
			calls = []map[string]any{}
		}
		out = append(out, copilotEvent{"assistant.message", map[string]any{"messageId": conv.NewUUID(), "content": content, "toolRequests": calls}})
	case m.Role != conv.RoleAssistant && content != "":
		out = append(out, copilotEvent{"user.message", map[string]any{"content": content}})
	}
	return out
}

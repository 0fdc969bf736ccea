package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// copilotWriter writes a compaction as Copilot CLI does when it compacts itself: a
// session.compaction_complete event whose summaryContent is the summary. Copilot's context on
// resume is then its summary message and the events after it only, so the kept tail follows as
// copies of its events under fresh ids, and the head rides in the summary. ctxc's provenance is
// under data.ctxc, which Copilot ignores. A new file (-o) is the session.start event with a
// fresh session id, the compaction event and the tail's copies.
type copilotWriter struct{}

func (copilotWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	last, err := src.LastRecord()
	if err != nil {
		return Written{}, err
	}
	lo, err := conv.ParseObject(last)
	if err != nil {
		return Written{}, fmt.Errorf("%s: the newest event: %w", src.Path, err)
	}
	out, err := copilotEvents(src, c, lo.Str("id"))
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail)}, nil
}

func (copilotWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("type") != "session.start" {
		return Written{}, fmt.Errorf("%s:1: not a Copilot session.start event: a new Copilot session needs one", src.Path)
	}
	data, err := conv.ParseObject(h.Get("data"))
	if err != nil {
		return Written{}, fmt.Errorf("%s:1: session.start data: %w", src.Path, err)
	}
	id := conv.NewUUID()
	data.Set("sessionId", id)
	data.Set("startTime", conv.RFC3339ms(c.Now))
	h.Set("data", json.RawMessage(data.Encode()))
	h.Set("id", conv.NewUUID())
	h.Set("timestamp", conv.RFC3339ms(c.Now))
	h.Set("parentId", nil)
	out, err := copilotEvents(src, c, h.Str("id"))
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines(append([][]byte{h.Encode()}, out...)), Messages: 1 + len(c.Tail), Session: id,
		Resume: fmt.Sprintf("place it as ~/.copilot/session-state/%s/events.jsonl, then: %s", id, conv.ResumeHint(FormatCopilot, id))}, nil
}

// copilotEvents are the compaction event, child of parent, and the copies of the tail.
func copilotEvents(src *Source, c *Compaction, parent string) ([][]byte, error) {
	e := conv.NewObject()
	e.Set("type", "session.compaction_complete")
	meta := c.Meta
	meta.TailLines = 0
	e.Set("data", map[string]any{"success": true, "outcome": "applied", "trigger": "manual",
		"preCompactionTokens": c.Meta.TokensBefore, "postCompactionTokens": c.Meta.TokensAfter,
		"messagesRemoved": len(c.Head) + len(c.Middle), "summaryContent": conv.HeadedSummary(c), "ctxc": meta})
	id := conv.NewUUID()
	e.Set("id", id)
	e.Set("timestamp", conv.RFC3339ms(c.Now))
	e.Set("parentId", parentOrNil(parent))
	copies, err := conv.CopyTailRecords(src, c, "Copilot", id, copilotApplyEdits)
	if err != nil {
		return nil, err
	}
	return append([][]byte{e.Encode()}, copies...), nil
}

func parentOrNil(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// copilotApplyEdits writes a cut tool result's text into a copy of its event.
func copilotApplyEdits(o *object, m *Message) {
	data, err := conv.ParseObject(o.Get("data"))
	if err != nil {
		return
	}
	for _, b := range m.Blocks {
		if b.Kind == BlockToolResult {
			data.Set("success", true)
			data.Set("result", map[string]string{"content": b.Text})
			data.Del("error")
		}
	}
	o.Set("data", json.RawMessage(data.Encode()))
}

// copilotVersion is the Copilot CLI version a new session's session.start names (the one its
// format was read from).
const copilotVersion = "1.0.102"

// copilotSession writes a new Copilot CLI session: a session.start event (a fresh session id, the
// project's folder as its context), then one event per conversation item, each the child of the
// one before: a user.message per user text, an assistant.message per assistant message (its
// calls as toolRequests), a tool.execution_complete per result (a failed one as Copilot records
// a failed tool: its error's message). System and developer text becomes user text: Copilot
// rebuilds its own system prompt.
func copilotSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	event := func(typ string, data map[string]any) error {
		e := conv.NewUUID()
		b, err := conv.Marshal(map[string]any{"type": typ, "data": data, "id": e, "timestamp": now, "parentId": parentOrNil(parent)})
		if err != nil {
			return err
		}
		parent = e
		out = append(out, b)
		return nil
	}
	if err := event("session.start", map[string]any{"sessionId": id, "version": 1, "producer": "copilot-agent",
		"copilotVersion": copilotVersion, "startTime": now, "context": map[string]any{"cwd": s.Cwd}}); err != nil {
		return Written{}, r.dropped, err
	}
	messages := 0
	for _, m := range r.freshCalls(ms, "call_") {
		for _, ev := range copilotMessageEvents(&m) {
			if err := event(ev.typ, ev.data); err != nil {
				return Written{}, r.dropped, err
			}
			messages++
		}
	}
	if messages == 0 {
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: messages, Session: id}, r.dropped, nil
}

type copilotEvent struct {
	typ  string
	data map[string]any
}

// copilotMessageEvents are the events of one message: its results first (they answer calls
// before it), then its text and calls.
func copilotMessageEvents(m *Message) []copilotEvent {
	results, rest := splitResults(*m)
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
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				text = append(text, b.Text)
			}
		case BlockToolCall:
			calls = append(calls, map[string]any{"toolCallId": b.ID, "name": b.Name, "arguments": callArgs(b.Args)})
		}
	}
	content := strings.Join(text, "\n\n")
	switch {
	case m.Role == RoleAssistant && (content != "" || len(calls) > 0):
		if calls == nil {
			calls = []map[string]any{}
		}
		out = append(out, copilotEvent{"assistant.message", map[string]any{"messageId": conv.NewUUID(), "content": content, "toolRequests": calls}})
	case m.Role != RoleAssistant && content != "":
		out = append(out, copilotEvent{"user.message", map[string]any{"content": content}})
	}
	return out
}

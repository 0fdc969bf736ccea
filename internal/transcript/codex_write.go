package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// codexWriter writes a compaction as Codex does when it compacts itself: one `compacted` line
// whose replacement_history is the new history (Codex's resume replaces everything before it
// with that list, then replays the items after it). The list holds the head's items as they
// were, the summary as a user message, then the tail's items. ctxc's provenance rides in the
// payload under "ctxc", which Codex ignores. A new file (-o) is the session_meta line with a
// fresh session id, then that compacted line.
type codexWriter struct{}

func (codexWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	line, err := codexCompacted(src, c)
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{line}), Messages: codexMessages(c)}, nil
}

func (codexWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	meta, err := conv.ParseObject(first)
	if err != nil || meta.Str("type") != "session_meta" {
		return Written{}, fmt.Errorf("%s: the first line is not a session_meta record: a new Codex session needs one", src.Path)
	}
	payload, err := conv.ParseObject(meta.Get("payload"))
	if err != nil {
		return Written{}, fmt.Errorf("%s:1: session_meta: %w", src.Path, err)
	}
	id := newUUIDv7(c.Now)
	payload.Set("id", id)
	payload.Set("timestamp", conv.RFC3339ms(c.Now))
	meta.Set("payload", json.RawMessage(payload.Encode()))
	meta.Set("timestamp", conv.RFC3339ms(c.Now))
	line, err := codexCompacted(src, c)
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{meta.Encode(), line}), Messages: codexMessages(c), Session: id,
		Resume: fmt.Sprintf("place it as $CODEX_HOME/sessions/%s/rollout-%s-%s.jsonl, then: %s",
			c.Now.UTC().Format("2006/01/02"), c.Now.UTC().Format("2006-01-02T15-04-05"), id, conv.ResumeHint(FormatCodex, id))}, nil
}

// codexMessages is how many messages the written history reloads to: head, summary, tail.
func codexMessages(c *Compaction) int { return len(c.Head) + 1 + len(c.Tail) }

func codexCompacted(src *Source, c *Compaction) ([]byte, error) {
	var hist []json.RawMessage
	add := func(ms []Message) error {
		for i := range ms {
			recs, err := src.Records(&ms[i])
			if err != nil {
				return err
			}
			for _, r := range recs {
				if r == nil || ms[i].Edited {
					// Rendered from the message: ctxc made it (or cut it in an emergency).
					it, err := codexRender(&ms[i])
					if err != nil {
						return err
					}
					hist = append(hist, it)
					continue
				}
				hist = append(hist, json.RawMessage(codexItemOf(jsonl.Value(conv.UnsafeString(r)))))
			}
		}
		return nil
	}
	if err := add(c.Head); err != nil {
		return nil, err
	}
	text := SummaryPreamble + c.Summary
	summary, err := conv.Marshal(map[string]any{"type": "message", "role": "user",
		"content": []map[string]string{{"type": "input_text", "text": text}}})
	if err != nil {
		return nil, err
	}
	hist = append(hist, summary)
	if err := add(c.Tail); err != nil {
		return nil, err
	}
	payload := conv.NewObject()
	payload.Set("message", text)
	payload.Set("replacement_history", hist)
	meta := c.Meta
	meta.TailLines = 0
	payload.Set("ctxc", meta)
	rec := conv.NewObject()
	rec.Set("timestamp", conv.RFC3339ms(c.Now))
	rec.Set("type", "compacted")
	rec.Set("payload", json.RawMessage(payload.Encode()))
	return rec.Encode(), nil
}

// codexRender writes a message no record holds as such (a legacy rebuild's summary or cut user
// text, an output for a call left open) as a response item.
func codexRender(m *Message) (json.RawMessage, error) {
	if m.Role == RoleTool && len(m.Blocks) == 1 && m.Blocks[0].Kind == BlockToolResult {
		return conv.Marshal(map[string]any{"type": "function_call_output", "call_id": m.Blocks[0].ID, "output": m.Blocks[0].Text})
	}
	return conv.Marshal(map[string]any{"type": "message", "role": string(m.Role),
		"content": []map[string]string{{"type": "input_text", "text": m.TextContent()}}})
}

// newUUIDv7 is a time-ordered UUID, the kind Codex gives its sessions.
func newUUIDv7(t time.Time) string {
	u := []byte(conv.NewUUID())
	ms := fmt.Sprintf("%012x", t.UnixMilli())
	copy(u[0:8], ms[0:8])
	copy(u[9:13], ms[8:12])
	u[14] = '7'
	return string(u)
}

// codexSession renders a new Codex session from messages: a session_meta line under a fresh
// id, then one response_item per text, call and output, in order. System text goes as a
// developer message, as Codex records its own instructions.
func codexSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := newUUIDv7(s.Now)
	now := conv.RFC3339ms(s.Now)
	meta, err := conv.Marshal(map[string]any{"timestamp": now, "type": "session_meta", "payload": map[string]any{
		"id": id, "timestamp": now, "cwd": s.Cwd, "originator": "codex_cli_rs", "cli_version": "0.169.0", "source": "cli"}})
	if err != nil {
		return Written{}, r.dropped, err
	}
	out := [][]byte{meta}
	for i := range ms {
		for _, it := range codexItems(&ms[i], r) {
			rec, err := conv.Marshal(map[string]any{"timestamp": now, "type": "response_item", "payload": it})
			if err != nil {
				return Written{}, r.dropped, err
			}
			out = append(out, rec)
		}
	}
	if len(out) == 1 {
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.dropped, nil
}

// codexItems are the response items of one message: its text as one message item, each call
// and each output an item of its own, in the order of the blocks.
func codexItems(m *Message, r *sessionRender) []map[string]any {
	role, kind := string(m.Role), "input_text"
	switch m.Role {
	case RoleAssistant:
		kind = "output_text"
	case RoleSystem, RoleDeveloper:
		role = "developer"
	case RoleTool:
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
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				text = append(text, map[string]string{"type": kind, "text": b.Text})
			}
		case BlockToolCall:
			flush()
			out = append(out, map[string]any{"type": "function_call", "name": b.Name, "arguments": callArgsText(b.Args), "call_id": r.callID("call_", b.ID)})
		case BlockToolResult:
			flush()
			out = append(out, map[string]any{"type": "function_call_output", "call_id": r.callID("call_", b.ID), "output": b.Text})
		}
	}
	flush()
	return out
}

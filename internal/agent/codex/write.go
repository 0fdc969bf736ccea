package codex

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as Codex does when it compacts itself: one `compacted` line
// whose replacement_history is the new history (Codex's resume replaces everything before it
// with that list, then replays the items after it). The list holds the head's items as they
// were, the summary as a user message, then the tail's items. ctxc's provenance rides in the
// payload under "ctxc", which Codex ignores. A new file (-o) is the session_meta line with a
// fresh session id, then that compacted line.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	line, err := codexCompacted(src, c)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{line}), Messages: codexMessages(c)}, nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	meta, err := conv.ParseObject(first)
	if err != nil || meta.Str("type") != "session_meta" {
		return conv.Written{}, fmt.Errorf("%s: the first line is not a session_meta record: a new Codex session needs one", src.Path)
	}
	payload, err := conv.ParseObject(meta.Get("payload"))
	if err != nil {
		return conv.Written{}, fmt.Errorf("%s:1: session_meta: %w", src.Path, err)
	}
	id := conv.NewUUIDv7(c.Now)
	payload.Set("id", id)
	payload.Set("timestamp", conv.RFC3339ms(c.Now))
	meta.Set("payload", json.RawMessage(payload.Encode()))
	meta.Set("timestamp", conv.RFC3339ms(c.Now))
	line, err := codexCompacted(src, c)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{meta.Encode(), line}), Messages: codexMessages(c), Session: id,
		Resume: fmt.Sprintf("place it as $CODEX_HOME/sessions/%s/rollout-%s-%s.jsonl, then: %s",
			c.Now.UTC().Format("2006/01/02"), c.Now.UTC().Format("2006-01-02T15-04-05"), id, conv.ResumeHint(conv.FormatCodex, id))}, nil
}

// codexMessages is how many messages the written history reloads to: head, summary, tail.
func codexMessages(c *conv.Compaction) int { return len(c.Head) + 1 + len(c.Tail) }

func codexCompacted(src *conv.Source, c *conv.Compaction) ([]byte, error) {
	var hist []json.RawMessage
	add := func(ms []conv.Message) error {
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
	text := conv.SummaryPreamble + c.Summary
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
func codexRender(m *conv.Message) (json.RawMessage, error) {
	if m.Role == conv.RoleTool && len(m.Blocks) == 1 && m.Blocks[0].Kind == conv.BlockToolResult {
		return conv.Marshal(map[string]any{"type": "function_call_output", "call_id": m.Blocks[0].ID, "output": m.Blocks[0].Text})
	}
	return conv.Marshal(map[string]any{"type": "message", "role": string(m.Role),
		"content": []map[string]string{{"type": "input_text", "text": m.TextContent()}}})
}

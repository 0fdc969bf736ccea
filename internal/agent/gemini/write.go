package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as Gemini CLI persists its own chat compression: one
// {"$set":{"messages":[...]}} line, which replaces the session's message list on resume. The
// list is the head's messages, the summary as a user message, then the tail's messages, each
// rendered anew as a Gemini CLI message record under a fresh id (a model message's calls as
// functionCall parts of its content, which Gemini CLI replays as they are; results as a user
// message of functionResponse parts). ctxc's provenance is under "ctxc" beside "$set", which
// Gemini CLI ignores. A new file (-o) is a header with a fresh session id (the source's
// projectHash), then that line.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	line, n, err := geminiSet(c)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{line}), Messages: n}, nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("projectHash") == "" {
		return conv.Written{}, fmt.Errorf("%s: the first line is not a Gemini CLI session header: a new session needs its projectHash", src.Path)
	}
	id := conv.NewUUID()
	now := conv.RFC3339ms(c.Now)
	header := conv.NewObject()
	header.Set("sessionId", id)
	header.Set("projectHash", h.Str("projectHash"))
	header.Set("startTime", now)
	header.Set("lastUpdated", now)
	header.Set("kind", "main")
	line, n, err := geminiSet(c)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{header.Encode(), line}), Messages: n, Session: id,
		Resume: fmt.Sprintf("place it as ~/.gemini/tmp/<project>/chats/session-%s-%s.jsonl, then: %s",
			c.Now.UTC().Format("2006-01-02T15-04"), id[:8], conv.ResumeHint(conv.FormatGemini, id))}, nil
}

// geminiSet renders the $set line and says how many messages it reloads to.
func geminiSet(c *conv.Compaction) ([]byte, int, error) {
	now := conv.RFC3339ms(c.Now)
	var msgs []json.RawMessage
	add := func(ms []conv.Message) error {
		for i := range ms {
			rec, err := Render(&ms[i], now)
			if err != nil {
				return err
			}
			msgs = append(msgs, rec)
		}
		return nil
	}
	if err := add(c.Head); err != nil {
		return nil, 0, err
	}
	if err := add([]conv.Message{conv.SummaryMessage(c.Summary, 0)}); err != nil {
		return nil, 0, err
	}
	if err := add(c.Tail); err != nil {
		return nil, 0, err
	}
	set := conv.NewObject()
	set.Set("messages", msgs)
	set.Set("lastUpdated", now)
	meta := c.Meta
	meta.TailLines = 0
	rec := conv.NewObject()
	rec.Set("$set", json.RawMessage(set.Encode()))
	rec.Set("ctxc", meta)
	return rec.Encode(), len(msgs), nil
}

// Render is a message as a Gemini CLI message record.
func Render(m *conv.Message, now string) (json.RawMessage, error) {
	typ, role := "user", "user"
	if m.Role == conv.RoleAssistant {
		typ, role = "gemini", "model"
	}
	parts, err := conv.GeminiParts(m, role)
	if err != nil {
		return nil, err
	}
	return conv.Marshal(map[string]any{"id": conv.NewUUID(), "timestamp": now, "type": typ, "content": parts})
}

package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// geminiWriter writes a compaction as Gemini CLI persists its own chat compression: one
// {"$set":{"messages":[...]}} line, which replaces the session's message list on resume. The
// list is the head's messages, the summary as a user message, then the tail's messages, each
// rendered anew as a Gemini CLI message record under a fresh id (a model message's calls as
// functionCall parts of its content, which Gemini CLI replays as they are; results as a user
// message of functionResponse parts). ctxc's provenance is under "ctxc" beside "$set", which
// Gemini CLI ignores. A new file (-o) is a header with a fresh session id (the source's
// projectHash), then that line.
type geminiWriter struct{}

func (geminiWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	line, n, err := geminiSet(c)
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{line}), Messages: n}, nil
}

func (geminiWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("projectHash") == "" {
		return Written{}, fmt.Errorf("%s: the first line is not a Gemini CLI session header: a new session needs its projectHash", src.Path)
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
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{header.Encode(), line}), Messages: n, Session: id,
		Resume: fmt.Sprintf("place it as ~/.gemini/tmp/<project>/chats/session-%s-%s.jsonl, then: %s",
			c.Now.UTC().Format("2006-01-02T15-04"), id[:8], conv.ResumeHint(FormatGemini, id))}, nil
}

// geminiSet renders the $set line and says how many messages it reloads to.
func geminiSet(c *Compaction) ([]byte, int, error) {
	now := conv.RFC3339ms(c.Now)
	var msgs []json.RawMessage
	add := func(ms []Message) error {
		for i := range ms {
			rec, err := geminiRender(&ms[i], now)
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
	if err := add([]Message{SummaryMessage(c.Summary, 0)}); err != nil {
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

// geminiRender is a message as a Gemini CLI message record.
func geminiRender(m *Message, now string) (json.RawMessage, error) {
	typ, role := "user", "user"
	if m.Role == RoleAssistant {
		typ, role = "gemini", "model"
	}
	parts, err := conv.GeminiParts(m, role)
	if err != nil {
		return nil, err
	}
	return conv.Marshal(map[string]any{"id": conv.NewUUID(), "timestamp": now, "type": typ, "content": parts})
}

// geminiRecord decodes one line for searches: a message record's messages; a $set of
// messages is copies of earlier messages, except a compression summary it brings.
func geminiRecord(v jsonl.Value) Record {
	f := geminiFieldsOf(v)
	if f.id.IsString() {
		return Record{Messages: geminiRecordMessages(f, conv.SearchText)}
	}
	var rec Record
	f.set.Get("messages").Each(func(_ string, m jsonl.Value) bool {
		for _, msg := range geminiRecordMessages(geminiFieldsOf(m), conv.SearchText) {
			if msg.Summary {
				rec.Compaction = true
				rec.Messages = append(rec.Messages, msg)
			}
		}
		return true
	})
	if rec.Compaction {
		rec.Meta = conv.MetaOf(v.Get("ctxc"))
	}
	return rec
}

// geminiSession writes a new Gemini CLI session: the header (a fresh session id, the projectHash
// Gemini CLI gives the project: the SHA-256 of its folder), then one message record a line, as
// geminiRender renders a compaction's messages (a model message's calls as functionCall parts, a
// result as a user message of functionResponse parts named after their call). System and
// developer text becomes user text: Gemini CLI rebuilds its own system instruction.
func geminiSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	header := conv.NewObject()
	header.Set("sessionId", id)
	header.Set("projectHash", agent.GeminiProjectHash(s.Cwd))
	header.Set("startTime", now)
	header.Set("lastUpdated", now)
	header.Set("kind", "main")
	out := [][]byte{header.Encode()}
	for _, m := range r.freshCalls(ms, "call_") {
		if m.Role != RoleAssistant && geminiIgnoredUserText(m.TextContent()) && !hasResults(m) {
			r.dropped.Unsent++
		}
		rec, err := geminiRender(&m, now)
		if err != nil {
			return Written{}, r.dropped, err
		}
		out = append(out, rec)
	}
	if len(out) == 1 {
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.dropped, nil
}

// geminiIgnoredUserText: a user message Gemini CLI leaves out of the history it resumes (its
// convertSessionToClientHistory): its text, trimmed, starts with "/" or "?" (a command).
func geminiIgnoredUserText(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?")
}

func hasResults(m Message) bool {
	for _, b := range m.Blocks {
		if b.Kind == BlockToolResult {
			return true
		}
	}
	return false
}

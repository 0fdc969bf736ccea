package qwen

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as Qwen Code records its own chat compression: a system
// record, subtype chat_compression, child of the newest record, whose systemPayload's
// compressedHistory is the new history (Qwen Code's resume replaces everything before it with
// that list, then adds the records after it). The list holds the head's messages, the summary as
// a user content, then the tail's messages, rendered as Gemini API contents. ctxc's provenance
// is under "ctxc", which Qwen Code ignores. A new file (-o) is that record alone, under a fresh
// session id (the file's name: <id>.jsonl).
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	last, err := src.LastRecord()
	if err != nil {
		return conv.Written{}, err
	}
	o, err := conv.ParseObject(last)
	if err != nil || o.Str("uuid") == "" || o.Str("sessionId") == "" {
		return conv.Written{}, fmt.Errorf("%s: the last line is not a Qwen Code record (uuid, sessionId)", src.Path)
	}
	rec, n, err := qwenCompressionRecord(c, o.Str("uuid"), o.Str("sessionId"), o)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{rec}), Messages: n}, nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	o, err := conv.ParseObject(first)
	if err != nil || o.Str("sessionId") == "" {
		return conv.Written{}, fmt.Errorf("%s: the first line is not a Qwen Code record (sessionId)", src.Path)
	}
	id := conv.NewUUID()
	rec, n, err := qwenCompressionRecord(c, "", id, o)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines([][]byte{rec}), Messages: n, Session: id,
		Resume: fmt.Sprintf("place it as ~/.qwen/projects/<project>/chats/%s.jsonl, then in the project: %s", id, conv.ResumeHint(conv.FormatQwen, id))}, nil
}

// qwenCompressionRecord renders the chat_compression record; like (a record of the session) gives
// its cwd and version.
func qwenCompressionRecord(c *conv.Compaction, parent, session string, like *conv.Object) ([]byte, int, error) {
	var hist []json.RawMessage
	add := func(ms []conv.Message) error {
		for i := range ms {
			m := &ms[i]
			role := "user"
			if m.Role == conv.RoleAssistant {
				role = "model"
			}
			parts, err := conv.GeminiParts(m, role)
			if err != nil {
				return err
			}
			b, err := conv.Marshal(map[string]any{"role": role, "parts": parts})
			if err != nil {
				return err
			}
			hist = append(hist, b)
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
	payload, err := conv.Marshal(map[string]any{
		"info": map[string]any{"originalTokenCount": c.Meta.TokensBefore, "newTokenCount": c.Meta.TokensAfter,
			"compressionStatus": 1, "newTokenCountIsEstimated": true},
		"compressedHistory": hist,
	})
	if err != nil {
		return nil, 0, err
	}
	rec := conv.NewObject()
	rec.Set("uuid", conv.NewUUID())
	if parent == "" {
		rec.Set("parentUuid", nil)
	} else {
		rec.Set("parentUuid", parent)
	}
	rec.Set("sessionId", session)
	rec.Set("timestamp", conv.RFC3339ms(c.Now))
	rec.Set("type", "system")
	for _, k := range []string{"cwd", "version"} {
		if v := like.Get(k); v != nil {
			rec.Set(k, v)
		}
	}
	rec.Set("subtype", "chat_compression")
	rec.Set("systemPayload", json.RawMessage(payload))
	meta := c.Meta
	meta.TailLines = 0
	rec.Set("ctxc", meta)
	return rec.Encode(), len(hist), nil
}

// Record decodes one line for searches: a record's message; a chat compression's summary
// (its compressedHistory's first content; the others are copies).
func Record(v jsonl.Value) conv.Record {
	f := qwenFieldsOf(v)
	if !f.valid() {
		return conv.Record{}
	}
	if f.typ.Str() == "system" {
		if f.subtype.Str() != "chat_compression" {
			return conv.Record{}
		}
		ms := qwenHistory(f.payload.Get("compressedHistory"), conv.SearchText)
		rec := conv.Record{Compaction: true, Meta: conv.MetaOf(v.Get("ctxc"))}
		if len(ms) > 0 {
			rec.Messages = ms[:1]
		}
		return rec
	}
	if f.subtype.Str() == "realtime_message" {
		return conv.Record{}
	}
	m := qwenMessage(f.message, conv.SearchText)
	if len(m.Blocks) == 0 {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}}
}

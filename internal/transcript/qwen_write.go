package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// qwenWriter writes a compaction as Qwen Code records its own chat compression: a system
// record, subtype chat_compression, child of the newest record, whose systemPayload's
// compressedHistory is the new history (Qwen Code's resume replaces everything before it with
// that list, then adds the records after it). The list holds the head's messages, the summary as
// a user content, then the tail's messages, rendered as Gemini API contents. ctxc's provenance
// is under "ctxc", which Qwen Code ignores. A new file (-o) is that record alone, under a fresh
// session id (the file's name: <id>.jsonl).
type qwenWriter struct{}

func (qwenWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	last, err := src.LastRecord()
	if err != nil {
		return Written{}, err
	}
	o, err := conv.ParseObject(last)
	if err != nil || o.Str("uuid") == "" || o.Str("sessionId") == "" {
		return Written{}, fmt.Errorf("%s: the last line is not a Qwen Code record (uuid, sessionId)", src.Path)
	}
	rec, n, err := qwenCompressionRecord(c, o.Str("uuid"), o.Str("sessionId"), o)
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{rec}), Messages: n}, nil
}

func (qwenWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	o, err := conv.ParseObject(first)
	if err != nil || o.Str("sessionId") == "" {
		return Written{}, fmt.Errorf("%s: the first line is not a Qwen Code record (sessionId)", src.Path)
	}
	id := conv.NewUUID()
	rec, n, err := qwenCompressionRecord(c, "", id, o)
	if err != nil {
		return Written{}, err
	}
	return Written{Data: conv.Lines([][]byte{rec}), Messages: n, Session: id,
		Resume: fmt.Sprintf("place it as ~/.qwen/projects/<project>/chats/%s.jsonl, then in the project: %s", id, conv.ResumeHint(FormatQwen, id))}, nil
}

// qwenCompressionRecord renders the chat_compression record; like (a record of the session) gives
// its cwd and version.
func qwenCompressionRecord(c *Compaction, parent, session string, like *object) ([]byte, int, error) {
	var hist []json.RawMessage
	add := func(ms []Message) error {
		for i := range ms {
			m := &ms[i]
			role := "user"
			if m.Role == RoleAssistant {
				role = "model"
			}
			parts, err := geminiParts(m, role)
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
	if err := add([]Message{SummaryMessage(c.Summary, 0)}); err != nil {
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

// qwenRecord decodes one line for searches: a record's message; a chat compression's summary
// (its compressedHistory's first content; the others are copies).
func qwenRecord(v jsonl.Value) Record {
	f := qwenFieldsOf(v)
	if !f.valid() {
		return Record{}
	}
	if f.typ.Str() == "system" {
		if f.subtype.Str() != "chat_compression" {
			return Record{}
		}
		ms := qwenHistory(f.payload.Get("compressedHistory"), conv.SearchText)
		rec := Record{Compaction: true, Meta: conv.MetaOf(v.Get("ctxc"))}
		if len(ms) > 0 {
			rec.Messages = ms[:1]
		}
		return rec
	}
	if f.subtype.Str() == "realtime_message" {
		return Record{}
	}
	m := qwenMessage(f.message, conv.SearchText)
	if len(m.Blocks) == 0 {
		return Record{}
	}
	return Record{Messages: []Message{m}}
}

// qwenVersion is the Qwen Code version a new session's records name (the one its format was
// read from).
const qwenVersion = "0.24.4"

// qwenSession writes a new Qwen Code session: one record a line, each the child of the one
// before (Qwen Code resumes the chain that ends at the last record), under a fresh session id,
// with the project's folder as cwd (Qwen Code resumes a session only there). A message's text
// and calls are a user or assistant record of Gemini API parts; its results a tool_result record
// of functionResponse parts, which Qwen Code sends as the answers of their calls. System and
// developer text becomes user text: Qwen Code rebuilds its own system prompt.
func qwenSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	add := func(typ, role string, parts []Block) error {
		m := Message{Role: RoleUser, Blocks: parts}
		if role == "model" {
			m.Role = RoleAssistant
		}
		ps, err := geminiParts(&m, role)
		if err != nil {
			return err
		}
		u := conv.NewUUID()
		rec, err := conv.Marshal(map[string]any{"uuid": u, "parentUuid": conv.ParentOrNil(parent), "sessionId": id, "timestamp": now,
			"type": typ, "cwd": s.Cwd, "version": qwenVersion, "message": map[string]any{"role": role, "parts": ps}})
		if err != nil {
			return err
		}
		parent = u
		out = append(out, rec)
		return nil
	}
	for _, m := range r.freshCalls(ms, "call_") {
		results, rest := splitResults(m)
		if len(results.Blocks) > 0 {
			if err := add("tool_result", "user", results.Blocks); err != nil {
				return Written{}, r.dropped, err
			}
		}
		if len(rest.Blocks) == 0 {
			continue
		}
		typ, role := "user", "user"
		if m.Role == RoleAssistant {
			typ, role = "assistant", "model"
		}
		if err := add(typ, role, rest.Blocks); err != nil {
			return Written{}, r.dropped, err
		}
	}
	if len(out) == 0 {
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: len(out), Session: id}, r.dropped, nil
}

// Package qwen is ctxc's code for Qwen Code's sessions: their reader, the decoder of one line
// and the writer of a compaction (a new session from messages stays with the handoff rendering,
// in internal/transcript).
package qwen

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Qwen Code sessions (~/.qwen/projects/<cwd>/chats/<session>.jsonl,
// docs/formats.md), as Qwen Code 0.24 rebuilds its history on resume.
//
// Records, one a line: {"uuid","parentUuid","sessionId","timestamp","type",...} with type
// "user", "assistant", "tool_result" or "system". User, assistant and tool-result records carry
// a Gemini API content in "message" ({"role":"user"|"model","parts":[...]}); an assistant
// record its "usageMetadata". System records carry a "subtype" and a "systemPayload"
// (telemetry, attribution snapshots, slash commands, and chat_compression). Records sharing a
// uuid are fragments of one record: their parts are joined.
//
// Reload rule (Qwen Code's transcript index and SessionApiHistoryAccumulator): the leaf is the
// last conversation record (any but the session-artifact, session-sources and managed-session
// system records); the path is the leaf and its parentUuid ancestors (by each uuid's first
// record), up to a null or unknown parent or a cycle. Along the path a system record
// chat_compression whose systemPayload has a compressedHistory replaces the history with that
// list of contents (the summary as a user message, the model's "Got it.", the kept messages);
// other system records add nothing; a record with a message adds it (realtime_message records
// excepted).
//
// Simplifications (docs/formats.md): a mid-turn user message is a message of its own where Qwen
// Code joins it to the user message before it; a slash command's record does not take back the
// command's text; a side task's source boundary is not looked for; uuids are compared by a
// 64-bit hash.
type reader struct {
	recs  []qwenRec
	first map[uint64]int32   // first conversation record of each uuid
	frags map[int32][]int32  // further records of a uuid, by its first record
	leaf  int32              // the last conversation record, -1 before one
	chars map[uint64]int     // chars counted so far for an assistant uuid split over records
	comp  map[int32]qwenComp // compression records
}

type qwenRec struct {
	off    int64
	key    uint64
	parent uint64
	size   int32
	line   int32
	tokens int32 // of the message it yields (an assistant fragment: what it adds to the response)
	flags  uint8
}

const (
	qwenHasParent uint8 = 1 << iota
	qwenSystem
	qwenCompression
	qwenEmits
	qwenAssistant
)

type qwenComp struct {
	msgs   int32
	tokens int32
}

// Selectors of qwen refs.
const (
	qwenSelRecord      uint8 = iota // the record's message
	qwenSelCompression              // the compressedHistory of a chat_compression record
)

// Qwen Code's system subtypes that are not part of the conversation chain.
var qwenNonConversation = map[string]bool{"session_artifact_event": true, "session_artifact_snapshot": true,
	"session_sources_snapshot": true, "managed_session_header_v1": true, "managed_session_event_v1": true,
	"managed_session_commit_v1": true}

var qwenRecordTypes = map[string]bool{"user": true, "assistant": true, "tool_result": true, "system": true}

// NewReader is a reader of one Qwen Code session.
func NewReader() conv.Reader {
	return &reader{first: map[uint64]int32{}, leaf: -1, comp: map[int32]qwenComp{}}
}

// qwenFields are the members of a record the reader uses.
type qwenFields struct {
	uuid, parent, sessionID, typ, subtype, message, usage, payload jsonl.Value
}

func qwenFieldsOf(v jsonl.Value) qwenFields {
	var f qwenFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "uuid":
			f.uuid = val
		case "parentUuid":
			f.parent = val
		case "sessionId":
			f.sessionID = val
		case "type":
			f.typ = val
		case "subtype":
			f.subtype = val
		case "message":
			f.message = val
		case "usageMetadata":
			f.usage = val
		case "systemPayload":
			f.payload = val
		}
		return true
	})
	return f
}

// valid is Qwen Code's validateTranscriptRecord: records failing it are skipped.
func (f *qwenFields) valid() bool {
	return f.uuid.IsString() && f.uuid != `""` && (f.parent.IsString() || f.parent.IsNull()) &&
		f.sessionID.IsString() && f.sessionID != `""` && qwenRecordTypes[f.typ.Str()]
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	f := qwenFieldsOf(jsonl.Value(doc.Raw))
	if !f.valid() {
		return
	}
	typ, sub := f.typ.Str(), f.subtype.Str()
	if typ == "system" && qwenNonConversation[sub] {
		return
	}
	idx := int32(len(r.recs))
	uuid := f.uuid.Str()
	rec := qwenRec{off: l.Offset, size: int32(l.Size), line: int32(l.Num), key: conv.EntryKey(uuid)}
	if f.parent.IsString() {
		rec.parent, rec.flags = conv.EntryKey(f.parent.Str()), qwenHasParent
	}
	firstIdx, seen := r.first[rec.key]
	if !seen {
		r.first[rec.key] = idx
	} else {
		if r.frags == nil {
			r.frags = map[int32][]int32{}
		}
		r.frags[firstIdx] = append(r.frags[firstIdx], idx)
		typ = r.typeOf(firstIdx) // a fragment takes its uuid's type
	}
	r.leaf = idx
	switch {
	case typ == "system":
		rec.flags |= qwenSystem
		if sub == "chat_compression" && !seen {
			r.compression(l, idx, f.payload, st)
			rec.flags |= qwenCompression
		}
	case f.message.IsObject() && sub != "realtime_message":
		r.message(l, &rec, f, typ, seen, st)
	}
	r.recs = append(r.recs, rec)
}

func (r *reader) typeOf(idx int32) string {
	switch fl := r.recs[idx].flags; {
	case fl&qwenSystem != 0:
		return "system"
	case fl&qwenAssistant != 0:
		return "assistant"
	}
	return "user"
}

// message counts a record's message; the records of one assistant response after its first
// add to that response.
func (r *reader) message(l *conv.Line, rec *qwenRec, f qwenFields, typ string, fragment bool, st *conv.Stats) {
	m := qwenMessage(f.message, conv.NoText)
	m.Line = l.Num
	if len(m.Blocks) == 0 {
		return
	}
	rec.flags |= qwenEmits
	if typ == "assistant" {
		rec.flags |= qwenAssistant
		if r.chars == nil {
			r.chars = map[uint64]int{}
		}
		prev := r.chars[rec.key]
		rec.tokens = int32(conv.ContinuationTokens(&m, prev))
		r.chars[rec.key] = prev + m.Chars()
		if fragment && prev > 0 {
			st.CountContinuation(&m, prev)
		} else {
			st.CountMessage(&m)
		}
		if f.usage.IsObject() {
			st.CountUsage(strings.Clone(f.uuid.Str()), qwenUsage(f.usage), true)
		}
		return
	}
	rec.tokens = int32(m.Tokens())
	st.CountMessage(&m)
}

// compression notes a chat_compression record: its summary (the first content of the
// compressed history) counts in the history, and the whole list is its context.
func (r *reader) compression(l *conv.Line, idx int32, payload jsonl.Value, st *conv.Stats) {
	hist := payload.Get("compressedHistory")
	if !hist.Exists() || hist.IsNull() || hist == "false" || hist == `""` || hist == "0" {
		return
	}
	st.Compactions++
	st.AddRecord(l)
	c := qwenComp{}
	for i, m := range qwenHistory(hist, conv.NoText) {
		c.msgs++
		c.tokens += int32(m.Tokens())
		if i == 0 {
			m.Line = l.Num
			st.CountMessage(&m)
		}
	}
	r.comp[idx] = c
}

func qwenUsage(u jsonl.Value) conv.Usage {
	var prompt, cand, thoughts, cached int64
	u.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "promptTokenCount":
			prompt = v.Int()
		case "candidatesTokenCount":
			cand = v.Int()
		case "thoughtsTokenCount":
			thoughts = v.Int()
		case "cachedContentTokenCount":
			cached = v.Int()
		}
		return true
	})
	return conv.Usage{Input: int(max(prompt-cached, 0)), Output: int(cand + thoughts), CacheRead: int(cached)}
}

// qwenMessage is a record's message: a Gemini API content.
func qwenMessage(msg jsonl.Value, text conv.TextMode) conv.Message {
	var role, parts jsonl.Value
	msg.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "role":
			role = v
		case "parts":
			parts = v
		}
		return true
	})
	if !parts.IsArray() {
		return conv.Message{}
	}
	return conv.GeminiContentMessage(role.Str(), parts, text)
}

// qwenHistory reads a compressedHistory: a list of contents, the first a summary.
func qwenHistory(hist jsonl.Value, text conv.TextMode) []conv.Message {
	var out []conv.Message
	hist.Each(func(_ string, c jsonl.Value) bool {
		m := qwenMessage(c, text)
		if len(out) == 0 {
			m.Summary = true
		}
		out = append(out, m)
		return true
	})
	return out
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatQwen
	path := r.path()
	start := 0
	var refs []conv.Ref
	for i, idx := range path {
		if r.recs[idx].flags&qwenCompression != 0 {
			start = i
		}
	}
	var prev *qwenRec // the record of the last ref, when it is an assistant record
	for _, idx := range path[start:] {
		if r.recs[idx].flags&qwenCompression != 0 {
			rec, c := r.recs[idx], r.comp[idx]
			refs = append(refs, conv.Ref{Off: rec.off, Size: rec.size, Line: rec.line, Tokens: c.tokens, Msgs: c.msgs, Sel: qwenSelCompression})
			prev = nil
			continue
		}
		for _, i := range append([]int32{idx}, r.frags[idx]...) {
			rec := &r.recs[i]
			if rec.flags&qwenEmits == 0 || rec.flags&qwenSystem != 0 {
				continue
			}
			msgs := int32(1)
			if rec.flags&qwenAssistant != 0 && prev != nil && prev.key == rec.key {
				msgs = 0 // a further record of a response: merged into it (MsgID)
			}
			refs = append(refs, conv.Ref{Off: rec.off, Size: rec.size, Line: rec.line, Tokens: rec.tokens, Msgs: msgs, Sel: qwenSelRecord})
			prev = nil
			if rec.flags&qwenAssistant != 0 {
				prev = rec
			}
		}
	}
	return refs
}

// path returns the first records of the uuids from the root to the leaf.
func (r *reader) path() []int32 {
	if r.leaf < 0 {
		return nil
	}
	cur, ok := r.first[r.recs[r.leaf].key]
	if !ok {
		return nil
	}
	seen := map[int32]bool{}
	var path []int32
	for !seen[cur] {
		seen[cur] = true
		path = append(path, cur)
		rec := r.recs[cur]
		if rec.flags&qwenHasParent == 0 {
			break
		}
		p, ok := r.first[rec.parent]
		if !ok {
			break
		}
		cur = p
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	f := qwenFieldsOf(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw))
	if x.Sel == qwenSelCompression {
		ms := qwenHistory(f.payload.Get("compressedHistory"), conv.WithText)
		for i := range ms {
			ms[i].Line = x.LineNum()
		}
		return ms, nil
	}
	m := qwenMessage(f.message, conv.WithText)
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation record")
	}
	m.Line = x.LineNum()
	if m.Role == conv.RoleAssistant {
		m.MsgID = strings.Clone(f.uuid.Str())
	}
	return []conv.Message{m}, nil
}

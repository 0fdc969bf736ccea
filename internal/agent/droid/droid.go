// Package droid is ctxc's code for Factory droid's sessions: their reader, the decoder of one
// line and the writer of a compaction.
package droid

import (
	"fmt"
	"hash/fnv"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Factory droid sessions: ~/.factory/sessions/<cwd>/<id>.jsonl beside
// <id>.settings.json (docs/formats.md). The first line is {"type":"session_start","id",...}.
//
// Conversation: "message" events {"id","parentId","timestamp","message":{role, content}}, whose
// message is an Anthropic Messages API message (text, image, thinking, tool_use; a user message
// of tool_result blocks is a tool message, as droid reads it). Messages only the user sees
// (message.hookEventName, or visibility "user_only" without a tool result) are counted in the
// history but are not sent to the model.
//
// Compaction: "compaction_state" events {summaryText, summaryKind, anchorMessage:{id,index},
// systemInfoText, removedCount}. Droid's summary message is a user message: its wrapper around
// summaryText ("A previous instance of Droid has summarized the conversation thus far as
// follows: <summary>…</summary> IMPORTANT: …"; summaryKind provider_switch_serialization has
// its own), then systemInfoText as a second text block.
//
// Reload rule (droid 0.215.0, its session loader and gzL/QoH): the messages are the "message"
// events in file order; the newest compaction_state starts the context with its summary
// message, followed by the messages after its anchor (found by id, else by index; none: all of
// them), leading tool results skipped. Without a compaction every message counts. Usage is in
// <id>.settings.json, not in the session file.
type reader struct {
	msgs []conv.Ref     // every conversation message, in file order (sel: droidSelSideband when not sent)
	ids  map[uint64]int // message id → index in msgs
	comp *droidComp
}

type droidComp struct {
	at       conv.Ref // the compaction_state line
	anchorID uint64
	hasID    bool
	index    int64 // anchorMessage.index, -1 when absent
	msgs     int   // messages before the compaction event
}

// Selectors of droid refs.
const (
	droidSelMessage  uint8 = iota // a message sent to the model
	droidSelSideband              // a message droid keeps from the model
	droidSelSummary               // a compaction_state's summary message
	droidSelToolOnly              // a message whose content is only tool results
)

// Droid's wrappers for summaries (droid 0.215.0, q2I).
const (
	SummaryHead   = "A previous instance of Droid has summarized the conversation thus far as follows:\n\n<summary>\n"
	SummaryTail   = "\n</summary>\n\nIMPORTANT: This summary was created by a previous instance of Droid. Files referenced in the summary may not be available until you explicitly view them again."
	SerializeHead = "The following prefix of this conversation has been serialized to maintain compatibility across model providers.\n\n"
	SerializeTail = "When making tool calls, always use your native tool calling schema \u2014 do not replicate the text format shown in the transcript above."
)

// NewReader is a reader of one droid session.
func NewReader() conv.Reader { return &reader{ids: map[uint64]int{}} }

func droidKey(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// droidFields are the members of an event the reader uses.
type droidFields struct {
	typ, id, message jsonl.Value
}

func droidEventFields(v jsonl.Value) droidFields {
	var f droidFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "type":
			f.typ = val
		case "id":
			f.id = val
		case "message":
			f.message = val
		}
		return true
	})
	return f
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	f := droidEventFields(v)
	switch f.typ.Str() {
	case "message":
		r.message(l, f, st)
	case "compaction_state":
		r.compaction(l, v, st)
	}
}

func (r *reader) message(l *conv.Line, f droidFields, st *conv.Stats) {
	if !f.message.IsObject() {
		return
	}
	m := conv.AnthropicMessage(f.message, conv.NoText)
	if len(m.Blocks) == 0 {
		return
	}
	m.Line = l.Num
	st.CountMessage(&m)
	x := conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1}
	switch {
	case droidSideband(f.message, &m):
		x.Sel = droidSelSideband
	case m.ToolResults() == len(m.Blocks):
		x.Sel = droidSelToolOnly
	}
	if f.id.IsString() {
		r.ids[droidKey(f.id.Str())] = len(r.msgs)
	}
	r.msgs = append(r.msgs, x)
}

// droidSideband: a message droid shows the user but does not send (IH1).
func droidSideband(msg jsonl.Value, m *conv.Message) bool {
	if msg.Get("hookEventName").Exists() {
		return true
	}
	return msg.Get("visibility").Str() == "user_only" && m.ToolResults() == 0
}

func (r *reader) compaction(l *conv.Line, v jsonl.Value, st *conv.Stats) {
	st.Compactions++
	st.AddRecord(l)
	m := droidSummary(v, conv.NoText)
	m.Line = l.Num
	st.CountMessage(&m)
	c := &droidComp{at: conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1, Sel: droidSelSummary},
		index: -1, msgs: len(r.msgs)}
	a := v.Get("anchorMessage")
	if id := a.Get("id"); id.IsString() {
		c.anchorID, c.hasID = droidKey(id.Str()), true
	}
	if i := a.Get("index"); conv.IsNumber(i) {
		c.index = i.Int()
	}
	r.comp = c
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatDroid
	keep := r.msgs
	var refs []conv.Ref
	if c := r.comp; c != nil {
		refs = append(refs, c.at)
		keep = r.msgs[r.anchor(c)+1:]
		for len(keep) > 0 && keep[0].Sel == droidSelToolOnly {
			keep = keep[1:]
		}
	}
	for _, x := range keep {
		if x.Sel != droidSelSideband {
			refs = append(refs, x)
		}
	}
	return refs
}

// anchor is the index of the compaction's anchor message (droid's Y2I), -1 for none.
func (r *reader) anchor(c *droidComp) int {
	if c.hasID {
		if i, ok := r.ids[c.anchorID]; ok {
			return i
		}
		return -1
	}
	if c.index < 0 || c.index >= int64(len(r.msgs)) {
		return -1
	}
	return int(c.index)
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	var m conv.Message
	if x.Sel == droidSelSummary {
		m = droidSummary(v, conv.WithText)
	} else {
		m = conv.AnthropicMessage(droidEventFields(v).message, conv.WithText)
	}
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation event")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// droidSummary is a compaction_state's summary message as droid sends it.
func droidSummary(v jsonl.Value, text conv.TextMode) conv.Message {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	summary := v.Get("summaryText")
	var info conv.Block
	hasInfo := false
	if si := v.Get("systemInfoText"); si.IsString() && si != `""` {
		info, hasInfo = conv.TextBlockV(conv.BlockText, si, text), true
	}
	if v.Get("summaryKind").Str() == "provider_switch_serialization" {
		fence := "```"
		t.Lit(SerializeHead + fence + "text\n")
		t.Val(summary)
		t.Lit("\n" + fence + "\n\n" + SerializeTail)
		m := conv.Message{Role: conv.RoleUser, Summary: true}
		if hasInfo {
			m.Blocks = append(m.Blocks, info)
		}
		m.Blocks = append(m.Blocks, t.Block())
		return m
	}
	t.Lit(SummaryHead)
	t.Val(summary)
	t.Lit(SummaryTail)
	m := conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{t.Block()}}
	if hasInfo {
		m.Blocks = append(m.Blocks, info)
	}
	return m
}

// Record is one event seen on its own (ctxc grep).
func Record(v jsonl.Value) conv.Record {
	f := droidEventFields(v)
	switch f.typ.Str() {
	case "compaction_state":
		m := conv.Message{Role: conv.RoleUser, Summary: true}
		if s := v.Get("summaryText"); s.IsString() {
			m.Blocks = []conv.Block{{Kind: conv.BlockText, Text: s.Str()}}
		}
		return conv.Record{Compaction: true, Meta: conv.MetaOf(v.Get("ctxc")), Messages: []conv.Message{m}}
	case "message":
		if !f.message.IsObject() {
			return conv.Record{}
		}
		m := conv.AnthropicMessage(f.message, conv.SearchText)
		if len(m.Blocks) == 0 {
			return conv.Record{}
		}
		return conv.Record{Messages: []conv.Message{m}}
	}
	return conv.Record{}
}

// Wrappers are the texts droid puts around the summaries and serialized prefixes it sends.
var Wrappers = []conv.Wrapper{conv.Head(SummaryHead), conv.Tail(SummaryTail), conv.Head(SerializeHead), conv.Tail(SerializeTail)}

// Package copilot is ctxc's code for GitHub Copilot CLI's sessions: their reader, the decoder of
// one line and the writer of a compaction (a new session from messages stays with the handoff
// rendering, in internal/transcript).
package copilot

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads GitHub Copilot CLI sessions: ~/.copilot/session-state/<id>/events.jsonl,
// one event a line, {"type","data","id","timestamp","parentId"} (docs/formats.md).
//
// Conversation:
//   - user.message → a user message with the text Copilot sends: data.transformedContent (the
//     prompt behind Copilot's <current_datetime> line), else data.content;
//   - assistant.message → an assistant message: data.content as text, data.toolRequests as tool
//     calls {toolCallId, name, arguments};
//   - tool.execution_complete → a tool message answering data.toolCallId: data.result.content
//     when data.success, else data.error.message (what Copilot sends for a failed tool);
//   - session.compaction_complete with data.success → a compaction: Copilot's summary message,
//     its wrapper listing the content of every user message before it, then
//     data.summaryContent.
//
// Events of a sub-agent (an agentId, or data.agentId / data.parentToolCallId) are counted in the
// history but are not the main conversation. Everything else (session.start/resume/shutdown,
// system.message — Copilot rebuilds its system prompt —, turns, usage, hooks, model.* logs) is
// metadata; session.usage_record gives the recorded usage.
//
// Reload rule (Copilot CLI 1.0.102 on --resume, checked against its requests): the newest
// successful compaction starts the context with its summary message; the conversation events
// after it follow. Without a compaction every conversation event counts, in file order.
type reader struct {
	events []conv.Ref
	users  []string // content of the user messages so far (Copilot's summary lists them)
	comp   int      // index in events of the newest compaction, -1 when none
	prefix string   // the newest compaction's wrapper before its summary text
}

// Selectors of copilot refs.
const (
	copilotSelEvent   uint8 = iota // the message the event yields
	copilotSelSummary              // the compaction's summary message
)

// Copilot's wrapper for a compaction summary (Copilot CLI 1.0.102, from its resume requests).
const (
	SummaryHead  = "Some of the conversation history has been summarized to free up context.\n\nYou were originally given instructions from a user over one or more turns. Here were the user messages:\n"
	SummaryMid   = "\nHere is a summary of the prior context:\n<summary>\n"
	SummaryTail  = "\n</summary>\n"
	UserMsgOpen  = "<user_message>\n"
	UserMsgClose = "\n</user_message>\n"
)

// NewReader is a reader of one Copilot CLI session.
func NewReader() conv.Reader { return &reader{comp: -1} }

// copilotFields are the members of an event the reader uses.
type copilotFields struct {
	typ, data, agentID jsonl.Value
}

func copilotEventFields(v jsonl.Value) copilotFields {
	var f copilotFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "type":
			f.typ = val
		case "data":
			f.data = val
		case "agentId":
			f.agentID = val
		}
		return true
	})
	return f
}

// sub reports whether the event belongs to a sub-agent (Copilot's own test).
func (f copilotFields) sub() bool {
	if s := f.agentID.Str(); s != "" {
		return true
	}
	if !f.data.IsObject() {
		return false
	}
	return f.data.Get("agentId").Str() != "" || f.data.Get("parentToolCallId").IsString()
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	f := copilotEventFields(jsonl.Value(doc.Raw))
	typ := f.typ.Str()
	if typ == "session.usage_record" {
		r.usage(l, f.data, st)
		return
	}
	if typ == "session.compaction_complete" {
		if f.data.Get("success").Bool() && !f.sub() {
			r.compaction(l, f.data, st)
		}
		return
	}
	m := copilotMessage(typ, f.data, conv.NoText)
	if len(m.Blocks) == 0 {
		return
	}
	m.Line = l.Num
	st.CountMessage(&m)
	if f.sub() {
		return
	}
	if typ == "user.message" {
		r.users = append(r.users, strings.Clone(f.data.Get("content").Text()))
	}
	r.events = append(r.events, conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1})
}

func (r *reader) usage(l *conv.Line, data jsonl.Value, st *conv.Stats) {
	u := data.Get("usage")
	if !u.IsObject() {
		return
	}
	us := conv.Usage{Input: int(u.Get("inputTokens").Int()), Output: int(u.Get("outputTokens").Int()),
		CacheRead: int(u.Get("cacheReadTokens").Int()), CacheWrite: int(u.Get("cacheWriteTokens").Int())}
	if us.Total() > 0 {
		st.CountUsage(fmt.Sprint("copilot:", l.Num), us, true)
	}
}

// compaction notes a successful compaction: its summary message starts the context.
func (r *reader) compaction(l *conv.Line, data jsonl.Value, st *conv.Stats) {
	st.Compactions++
	st.AddRecord(l)
	r.prefix = copilotPrefix(r.users)
	m := copilotSummary(r.prefix, data.Get("summaryContent"), conv.NoText)
	m.Line = l.Num
	st.CountMessage(&m)
	r.comp = len(r.events)
	r.events = append(r.events, conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1, Sel: copilotSelSummary})
}

// copilotPrefix is the wrapper before the summary text: the user messages so far.
func copilotPrefix(users []string) string {
	var b strings.Builder
	b.WriteString(SummaryHead)
	for _, u := range users {
		b.WriteString(UserMsgOpen)
		b.WriteString(u)
		b.WriteString(UserMsgClose)
	}
	b.WriteString(SummaryMid)
	return b.String()
}

func copilotSummary(prefix string, summary jsonl.Value, text conv.TextMode) conv.Message {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit(prefix)
	t.Val(summary)
	t.Lit(SummaryTail)
	return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{t.Block()}}
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatCopilot
	if r.comp < 0 {
		return r.events
	}
	return r.events[r.comp:]
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	f := copilotEventFields(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw))
	var m conv.Message
	if x.Sel == copilotSelSummary {
		m = copilotSummary(r.prefix, f.data.Get("summaryContent"), conv.WithText)
	} else {
		m = copilotMessage(f.typ.Str(), f.data, conv.WithText)
	}
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation event")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// copilotMessage turns a conversation event into a message (no blocks: none).
func copilotMessage(typ string, data jsonl.Value, text conv.TextMode) conv.Message {
	if !data.IsObject() {
		return conv.Message{}
	}
	switch typ {
	case "user.message":
		c := data.Get("transformedContent")
		if !c.IsString() || c == `""` {
			c = data.Get("content")
		}
		if !c.IsString() {
			return conv.Message{}
		}
		return conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{conv.TextBlockV(conv.BlockText, c, text)}}
	case "assistant.message":
		return copilotAssistant(data, text)
	case "tool.execution_complete":
		c := data.Get("result").Get("content")
		if !data.Get("success").Bool() {
			c = data.Get("error").Get("message")
		}
		b := conv.Block{Kind: conv.BlockToolResult, ID: data.Get("toolCallId").Str(), Chars: text.Count(c)}
		b.IsError = !data.Get("success").Bool()
		if text.On() {
			b.Text = c.Text()
		}
		return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
	}
	return conv.Message{}
}

func copilotAssistant(data jsonl.Value, text conv.TextMode) conv.Message {
	m := conv.Message{Role: conv.RoleAssistant}
	if c := data.Get("content"); c.IsString() && c != `""` {
		m.Blocks = append(m.Blocks, conv.TextBlockV(conv.BlockText, c, text))
	}
	data.Get("toolRequests").Each(func(_ string, t jsonl.Value) bool {
		m.Blocks = append(m.Blocks, conv.ToolCallBlockV(t.Get("toolCallId").Str(), t.Get("name").Str(), t.Get("arguments"), text))
		return true
	})
	return m
}

// Record is one event seen on its own (ctxc grep): a compaction's summary is its
// summaryContent (the wrapper's list of user messages repeats earlier records).
func Record(v jsonl.Value) conv.Record {
	f := copilotEventFields(v)
	if f.typ.Str() == "session.compaction_complete" {
		if !f.data.Get("success").Bool() {
			return conv.Record{}
		}
		m := conv.Message{Role: conv.RoleUser, Summary: true}
		if s := f.data.Get("summaryContent"); s.IsString() {
			m.Blocks = []conv.Block{{Kind: conv.BlockText, Text: s.Str()}}
		}
		return conv.Record{Compaction: true, Meta: conv.MetaOf(f.data.Get("ctxc")), Messages: []conv.Message{m}}
	}
	m := copilotMessage(f.typ.Str(), f.data, conv.SearchText)
	if len(m.Blocks) == 0 {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}, Sidechain: f.sub()}
}

// Wrappers are the texts Copilot CLI puts around the summaries it sends.
var Wrappers = []conv.Wrapper{conv.Head(SummaryHead), conv.Mid(SummaryMid), conv.Tail(SummaryTail),
	conv.Mid(UserMsgOpen), conv.Mid(UserMsgClose)}

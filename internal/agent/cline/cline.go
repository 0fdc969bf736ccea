// Package cline is ctxc's code for Cline CLI's sessions, as internal/agent/cline/clinesess exports them: their
// reader, the decoder of one line, the cut Cline makes of long tool results, and the writer of a
// compaction as a new Cline session.
package cline

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Cline CLI sessions (~/.cline/data/sessions/<id>/<id>.messages.json) as
// internal/agent/cline/clinesess exports them: a header {"type":"cline","sessionId","messages",
// "compactedThrough":K}, each message of the session on a line ({id, role, content:[...], ts,
// metadata, modelInfo, metrics}), then, when its compaction applies, the compaction's messages,
// each as {"type":"cline_compacted","index":I,"message":M}.
//
// Conversation (Cline 3.0.65, what it sends a Chat Completions model on resume): the messages but
// those shown only (metadata.displayOnly); a user message's texts without the <user_input
// mode="..."> wrapper Cline stores them in; its tool_result blocks as tool messages, their
// content as it is when a string, else as its JSON; an assistant's text and tool_use blocks
// (thinking is none of the text).
//
// Compaction: Cline keeps every message and writes the compacted messages (its summary, "Context
// summary:\n\n...", a user message marked metadata.kind "compaction_summary", and the messages it
// kept) to <id>.compaction.json; on resume the context is those messages, then the messages after
// the first K. One compaction state, one compaction.
type reader struct {
	through   int        // the header's compactedThrough
	history   []conv.Ref // the shown messages, in order
	compacted []conv.Ref // the compaction's messages
}

// HeaderType and CompactedType are the types of the export's own lines
// (clinesess.HeaderType, clinesess.CompactedType).
const (
	HeaderType    = "cline"
	CompactedType = "cline_compacted"
)

// NewReader is a reader of one Cline session.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	switch v.Get("type").Str() {
	case HeaderType:
		r.through = int(v.Get("compactedThrough").Int())
		return
	case CompactedType:
		if len(r.compacted) == 0 {
			st.Compactions++
			st.AddRecord(l)
		} else {
			st.ExtendRecord(l)
		}
		ms := messages(v.Get("message"), conv.NoText)
		r.compacted = append(r.compacted, conv.RefOf(l, ms))
		return
	}
	if v.Get("metadata").Get("displayOnly").Bool() {
		return
	}
	ms := messages(v, conv.NoText)
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	if u := v.Get("metrics"); u.IsObject() && v.Get("role").Str() == "assistant" {
		st.CountUsage("", conv.Usage{Input: int(u.Get("inputTokens").Int()), Output: int(u.Get("outputTokens").Int()),
			CacheRead: int(u.Get("cacheReadTokens").Int()), CacheWrite: int(u.Get("cacheWriteTokens").Int())}, true)
	}
	r.history = append(r.history, conv.RefOf(l, ms))
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatCline
	refs := r.history
	if r.through > 0 && r.through <= len(r.history) && len(r.compacted) > 0 {
		refs = append(append([]conv.Ref{}, r.compacted...), r.history[r.through:]...)
	}
	out := refs[:0:0]
	for _, x := range refs {
		if x.Msgs > 0 {
			out = append(out, x)
		}
	}
	return out
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if v.Get("type").Str() == CompactedType {
		v = v.Get("message")
	}
	if !v.Get("role").IsString() {
		return nil, fmt.Errorf("not a Cline message")
	}
	ms := messages(v, conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// messages is what one stored message sends: a user message's tool results are tool
// messages of their own, in the order of its content.
func messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	role := v.Get("role").Str()
	if role != "user" && role != "assistant" {
		return nil
	}
	summary := v.Get("metadata").Get("kind").Str() == "compaction_summary"
	content := v.Get("content")
	if content.IsString() {
		return []conv.Message{{Role: conv.Role(role), Summary: summary, Blocks: []conv.Block{textBlock(role, content, text)}}}
	}
	var out []conv.Message
	cur := conv.Message{Role: conv.Role(role), Summary: summary}
	flush := func() {
		if len(cur.Blocks) > 0 {
			out = append(out, cur)
		}
		cur = conv.Message{Role: conv.Role(role), Summary: summary}
	}
	content.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "text":
			cur.Blocks = append(cur.Blocks, textBlock(role, p.Get("text"), text))
		case "file":
			cur.Blocks = append(cur.Blocks, conv.TextBlockV(conv.BlockText, p.Get("content"), text))
		case "tool_use":
			cur.Blocks = append(cur.Blocks, conv.ToolCallBlockV(p.Get("id").Str(), p.Get("name").Str(), p.Get("input"), text))
		case "tool_result":
			flush()
			out = append(out, conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{result(p, text)}})
		case "image":
			cur.Blocks = append(cur.Blocks, conv.Block{Kind: conv.BlockImage})
		}
		return true
	})
	flush()
	return out
}

// result is a tool_result block as Cline sends it: its content when a string, else its
// JSON, each long string cut in its middle (cutMiddle).
func result(p jsonl.Value, text conv.TextMode) conv.Block {
	c := p.Get("content")
	b := conv.Block{Kind: conv.BlockToolResult, ID: p.Get("tool_use_id").Str(), Name: p.Get("name").Str()}
	if len(c) > maxResultChars { // (else no string of it is long enough to be cut)
		out := cutResult(c)
		t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
		t.Lit(out)
		tb := t.Block()
		b.Text, b.Chars = tb.Text, tb.Chars
		return b
	}
	b.Chars = text.Count(c)
	if text.On() {
		if c.IsString() {
			b.Text = c.Text()
		} else {
			b.Text = string(c)
		}
	}
	return b
}

// textBlock is a text block: a user's text trimmed and without the wrapper of its input
// (clinesess.UserInput).
func textBlock(role string, v jsonl.Value, text conv.TextMode) conv.Block {
	if role != "user" {
		return conv.TextBlockV(conv.BlockText, v, text)
	}
	s := v.Text()
	if !strings.Contains(s, "<user_") && strings.TrimSpace(s) == s {
		return conv.TextBlockV(conv.BlockText, v, text)
	}
	s = clinesess.UserInput(s)
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit(s)
	return t.Block()
}

// Record is one line seen on its own (ctxc grep): its messages; the compaction's first
// message is its record.
func Record(v jsonl.Value) conv.Record {
	switch v.Get("type").Str() {
	case HeaderType:
		return conv.Record{}
	case CompactedType:
		return conv.Record{Messages: messages(v.Get("message"), conv.SearchText), Compaction: v.Get("index").Int() == 0}
	}
	return conv.Record{Messages: messages(v, conv.SearchText)}
}

// LineTypes tell a Cline session as ctxc exports it: its header line, or the line that holds
// its compaction state.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}, {Type: CompactedType}}

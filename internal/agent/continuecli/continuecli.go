// Package continuecli is ctxc's code for Continue CLI's sessions, as transcript reads their
// documents (one history item a line): their reader, the decoder of one line and the writer of
// a new session (-o); the reading of the documents themselves stays in internal/transcript.
package continuecli

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Continue CLI sessions (~/.continue/sessions/<id>.json, docs/formats.md),
// laid out one record a line by continueSnapshot: the session's header (sessionId, title,
// workspaceDirectory, usage...), then its history items {"message":{role, content, toolCalls,
// toolCallId, usage}, "contextItems":[{name, content}], "toolCallStates":[{toolCallId, status,
// output:[{content}]}], "conversationSummary"}.
//
// Conversation (Continue CLI 1.5.47's convertFromUnifiedHistory, what it sends on resume): each
// item's message, a user message's context items first as `<context name="NAME">` blocks before
// its text, a "thinking" message as an assistant message; then one tool message per tool call
// state: its outputs' contents joined by line ends, or "Tool cancelled" when it has none.
//
// Compaction: Continue CLI's /compact (and its auto-compaction) replaces the history with an
// assistant message holding the summary, marked by "conversationSummary"; on resume the context
// starts at the first item that has one (getHistoryForLLM), every earlier item left out.
type reader struct {
	items   []conv.Ref // every history item's line, in order
	summary int        // the index in items of the first item with a conversationSummary, -1 if none
}

// continueCancelled is the result Continue CLI sends for a tool call that has no output.
const continueCancelled = "Tool cancelled"

// NewReader is a reader of one Continue CLI session.
func NewReader() conv.Reader { return &reader{summary: -1} }

// continueFields are the members of a history item the reader uses.
type continueFields struct {
	message, contextItems, toolCallStates, summary jsonl.Value
}

func continueFieldsOf(v jsonl.Value) continueFields {
	var f continueFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "message":
			f.message = val
		case "contextItems":
			f.contextItems = val
		case "toolCallStates":
			f.toolCallStates = val
		case "conversationSummary":
			f.summary = val
		}
		return true
	})
	return f
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	f := continueFieldsOf(v)
	if !f.message.IsObject() {
		return // the header
	}
	ms := continueItemMessages(f, conv.NoText)
	tokens := 0
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
		tokens += ms[i].Tokens()
	}
	if u, ok := continueUsage(f.message.Get("usage")); ok {
		st.CountUsage("", u, true)
	}
	if f.summary.Exists() {
		st.Compactions++
		st.AddRecord(l)
		if r.summary < 0 {
			r.summary = len(r.items)
		}
	}
	r.items = append(r.items, conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(tokens), Msgs: int32(len(ms))})
}

// continueUsage is an assistant message's recorded usage (OpenAI's names).
func continueUsage(u jsonl.Value) (conv.Usage, bool) {
	if !u.IsObject() {
		return conv.Usage{}, false
	}
	in, out := u.Get("prompt_tokens").Int(), u.Get("completion_tokens").Int()
	cached := u.Get("prompt_tokens_details").Get("cached_tokens").Int()
	return conv.Usage{Input: int(max(in-cached, 0)), Output: int(out), CacheRead: int(cached)}, true
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatContinue
	refs := r.items
	if r.summary >= 0 {
		refs = refs[r.summary:]
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
	f := continueFieldsOf(v)
	if !f.message.IsObject() {
		return nil, fmt.Errorf("not a history item")
	}
	ms := continueItemMessages(f, conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// continueItemMessages is what a history item sends: its message, then its tool results.
func continueItemMessages(f continueFields, text conv.TextMode) []conv.Message {
	m := continueMessage(f.message, f.contextItems, text)
	// The summary is the message the mark is on when it holds it (ctxc marks the first item of
	// the history it writes, a head message before the summary).
	m.Summary = f.summary.Exists() && f.message.Get("content") == f.summary
	out := []conv.Message{m}
	f.toolCallStates.Each(func(_ string, s jsonl.Value) bool {
		out = append(out, continueResult(s, text))
		return true
	})
	return out
}

// continueMessage is a history item's message as Continue CLI sends it.
func continueMessage(msg, contextItems jsonl.Value, text conv.TextMode) conv.Message {
	var role string
	var content, toolCalls, callID jsonl.Value
	msg.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "role":
			role = v.Str()
		case "content":
			content = v
		case "toolCalls":
			toolCalls = v
		case "toolCallId":
			callID = v
		}
		return true
	})
	switch role {
	case "tool":
		b := conv.ContentResultV(content, text)
		b.ID = callID.Str()
		return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
	case "thinking":
		role = "assistant"
	}
	m := conv.Message{Role: conv.Role(role)}
	if role == "user" && content.IsString() && contextItems.IsArray() && contextItems != "[]" {
		m.Blocks = append(m.Blocks, continueContextText(content, contextItems, text))
	} else {
		m.Blocks = continueContent(content, text)
	}
	toolCalls.Each(func(_ string, tc jsonl.Value) bool {
		fn := tc.Get("function")
		m.Blocks = append(m.Blocks, conv.ToolCallBlockV(tc.Get("id").Str(), fn.Get("name").Str(), fn.Get("arguments"), text))
		return true
	})
	if len(m.Blocks) > 1 && m.Blocks[0].Kind == conv.BlockText && continueEmpty(content) {
		m.Blocks = m.Blocks[1:] // an empty text beside tool calls: nothing the model reads
	}
	return m
}

func continueEmpty(c jsonl.Value) bool { return !c.Exists() || c.IsNull() || c == `""` }

// continueContent is a message's content: a string, or parts (text, imageUrl).
func continueContent(c jsonl.Value, text conv.TextMode) []conv.Block {
	if !c.IsArray() {
		if c.IsNull() || !c.Exists() {
			c = `""`
		}
		return []conv.Block{conv.TextBlockV(conv.BlockText, c, text)}
	}
	var out []conv.Block
	c.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "text":
			out = append(out, conv.TextBlockV(conv.BlockText, p.Get("text"), text))
		case "imageUrl":
			b := conv.Block{Kind: conv.BlockImage}
			if text.On() {
				b.Text = string(p)
			}
			out = append(out, b)
		default:
			out = append(out, conv.OpaqueBlockV(p, text))
		}
		return true
	})
	return out
}

// continueContextText is a user message's text with its context items before it, as Continue
// CLI renders them.
func continueContextText(content, items jsonl.Value, text conv.TextMode) conv.Block {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	items.Each(func(_ string, it jsonl.Value) bool {
		t.Lit(`<context name="`)
		t.Val(it.Get("name"))
		t.Lit("\">\n")
		t.Val(it.Get("content"))
		t.Lit("\n</context>\n\n")
		return true
	})
	t.Val(content)
	return t.Block()
}

// continueResult is the tool message of one tool call state.
func continueResult(s jsonl.Value, text conv.TextMode) conv.Message {
	b := conv.Block{Kind: conv.BlockToolResult, ID: s.Get("toolCallId").Str()}
	if fn := s.Get("toolCall").Get("function"); fn.IsObject() {
		b.Name = fn.Get("name").Str()
	}
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	n := 0
	s.Get("output").Each(func(_ string, o jsonl.Value) bool {
		if n > 0 {
			t.Lit("\n")
		}
		t.Val(o.Get("content"))
		n++
		return true
	})
	if n == 0 {
		t.Lit(continueCancelled)
	}
	tb := t.Block()
	b.Text, b.Chars = tb.Text, tb.Chars
	return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
}

// Record decodes one line for searches: a history item's messages; an item with a
// conversationSummary is a compaction record.
func Record(v jsonl.Value) conv.Record {
	f := continueFieldsOf(v)
	if !f.message.IsObject() {
		return conv.Record{}
	}
	rec := conv.Record{Messages: continueItemMessages(f, conv.SearchText), Compaction: f.summary.Exists()}
	if rec.Compaction {
		rec.Meta = conv.MetaOf(v.Get("ctxc"))
	}
	return rec
}

// Package goose is ctxc's code for Goose's sessions, as internal/agent/goose/goosestore exports them: their
// reader, the decoder of one line and the writer of a compaction.
package goose

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Goose sessions as internal/agent/goose/goosestore exports them from Goose's SQLite store:
// a header {"type":"goose","sessionId","name","workingDir"}, then each message row in the order
// Goose reads them: {"role","content":[...],"metadata":{...},"created","messageId"}.
//
// Conversation (Goose 1.52.0, what it sends a Chat Completions model on resume): the messages
// whose metadata does not say agentVisible false, among them the <turn-context> user messages
// Goose writes after each prompt; a user message's text items, its toolResponse items as tool
// messages (the text items of the result's content, joined by newlines); an assistant's text
// and toolRequest items (a call of toolCall.value's name with its arguments). Goose sends
// consecutive user messages as one, their texts joined by a newline: ctxc keeps them as the
// store holds them.
//
// Compaction (Goose 1.52.0, past its auto-compact threshold of the context limit): Goose asks the
// model for a summary, rewrites the messages it had as hidden from the agent (agentVisible
// false), and adds the summary (a user message shown to the agent only), its note that the
// context was compacted (an assistant message) and the prompt again. The summary is a user
// message the agent sees and the user does not, not a <turn-context>, after a message hidden
// from the agent: each one counts as a compaction.
type reader struct {
	history []conv.Ref
	hidden  bool // the last message row was hidden from the agent
}

// HeaderType is the type of the export's first line (goosestore.HeaderType).
const HeaderType = "goose"

// NewReader is a reader of one Goose session.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	if v.Get("type").Str() == HeaderType {
		return
	}
	ms := messages(v, conv.NoText)
	if isSummary(v, r.hidden) {
		st.Compactions++
		st.AddRecord(l)
	}
	r.hidden = v.Get("metadata").Get("agentVisible") == "false"
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	if u := v.Get("metadata").Get("usage"); u.IsObject() && v.Get("role").Str() == "assistant" {
		st.CountUsage("", conv.Usage{Input: int(u.Get("inputTokens").Int()), Output: int(u.Get("outputTokens").Int())}, true)
	}
	if len(ms) > 0 {
		r.history = append(r.history, conv.RefOf(l, ms))
	}
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatGoose
	return r.history
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if !v.Get("role").IsString() {
		return nil, fmt.Errorf("not a Goose message")
	}
	ms := messages(v, conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// isSummary: a message row is the summary of a compaction (a user message the agent sees and
// the user does not, not a <turn-context>, after one hidden from the agent).
func isSummary(v jsonl.Value, afterHidden bool) bool {
	md := v.Get("metadata")
	return afterHidden && v.Get("role").Str() == "user" && md.Get("userVisible") == "false" &&
		md.Get("agentVisible") != "false" && md.Get("turnContext") != "true"
}

// messages is what one stored message sends: nothing when it is not visible to the agent;
// a user message's tool responses are tool messages of their own, in the order of its content.
func messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	role := v.Get("role").Str()
	if role != "user" && role != "assistant" {
		return nil
	}
	if vis := v.Get("metadata").Get("agentVisible"); vis == "false" {
		return nil
	}
	var out []conv.Message
	cur := conv.Message{Role: conv.Role(role)}
	flush := func() {
		if len(cur.Blocks) > 0 {
			out = append(out, cur)
		}
		cur = conv.Message{Role: conv.Role(role)}
	}
	v.Get("content").Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "text":
			cur.Blocks = append(cur.Blocks, conv.TextBlockV(conv.BlockText, p.Get("text"), text))
		case "toolRequest":
			call := p.Get("toolCall").Get("value")
			cur.Blocks = append(cur.Blocks, conv.ToolCallBlockV(p.Get("id").Str(), call.Get("name").Str(), call.Get("arguments"), text))
		case "toolResponse":
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

// result is a toolResponse as Goose sends it: the text items of its result's content,
// joined by newlines; an error result (status "error", a call Goose could not make) as
// errorPrefix and the stored error.
func result(p jsonl.Value, text conv.TextMode) conv.Block {
	b := conv.Block{Kind: conv.BlockToolResult, ID: p.Get("id").Str()}
	res := p.Get("toolResult")
	var texts []string
	if res.Get("status").Str() == "error" {
		texts = append(texts, errorPrefix+res.Get("error").Text())
	} else {
		res.Get("value").Get("content").Each(func(_ string, c jsonl.Value) bool {
			if c.Get("type").Str() == "text" {
				texts = append(texts, c.Get("text").Text())
			}
			return true
		})
	}
	s := strings.Join(texts, "\n")
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit(s)
	tb := t.Block()
	b.Text, b.Chars = tb.Text, tb.Chars
	return b
}

// errorPrefix opens an error result as Goose 1.52.0 sends it on resume: its store keeps the
// error's message only, which Goose reads back as an internal error (JSON-RPC code -32603) and
// sends after this sentence, code first.
const errorPrefix = "The tool call returned the following error:\n-32603: "

// Record is one line seen on its own (ctxc grep): its messages.
func Record(v jsonl.Value) conv.Record {
	if v.Get("type").Str() == HeaderType {
		return conv.Record{}
	}
	return conv.Record{Messages: messages(v, conv.SearchText)}
}

// ReadOnly says why ctxc never writes into Goose's store; a compaction is written with -o, as a
// ctxc-format file.
const ReadOnly = "is a session of Goose's SQLite store, which ctxc only reads"

// LineTypes tell a session ctxc exports from Goose's files by its header line.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}}

// Package clinetask is ctxc's code for the tasks of Cline's extension, the Cline CLI 2.x, Kilo
// Code's extension and Roo Code, as internal/agent/clinetask/clinetask exports them: their reader and the
// decoder of one line. ctxc only reads them.
package clinetask

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/agent/clinetask/clinetask"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads a task as internal/agent/clinetask/clinetask exports it: a header {"type":"cline_task" or
// "roo_task","taskId","messages","deletedRange"}, then each message of
// api_conversation_history.json as {"type":"task_message","index","sent","edits","dropResults",
// "drop","calls","message":M} (M an Anthropic message param: role, content as a string or
// blocks text, image, tool_use, tool_result, thinking; "ts"; Cline's modelInfo and metrics; Roo
// Code's isSummary, condenseParent...), then, when the last sent message is an assistant's with
// calls, {"type":"task_open_calls","calls":[ids]}.
//
// Conversation (what Cline CLI 2.18.0 sends a Chat Completions model when it resumes a task;
// the extension shares its code): the messages marked sent (the export applies the agent's
// reload rule); a user message's tool results first, in the order of the calls of the message
// before it (Calls; "result missing" for a call it holds no result of), its text and images
// after them; an assistant's texts and tool calls; the edits Cline made of a block's text in
// place of it. Its text tool calls (<read_file>...) are an assistant's text, their results the
// next user message's text. When Cline resumes, its last user message and the resumption
// texts it adds are one message: the loaded context ends with what the file holds.
//
// Compaction: Cline's summarize_task and condense calls (and their results, which carry the
// summary) and Roo Code's summaries (isSummary) each count as one; the range Cline truncated
// away and the messages Roo Code's summaries stand for are not sent.
type reader struct {
	format conv.Format // Cline's or Roo Code's, by the header
	refs   []conv.Ref  // the sent messages, then the open calls' results
}

// NewReader is a reader of one task.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	switch v.Get("type").Str() {
	case clinetask.ClineHeader:
		r.format = conv.FormatClineTask
		return
	case clinetask.RooHeader:
		r.format = conv.FormatRooCode
		return
	case clinetask.OpenType:
		ms := openResults(v, conv.NoText)
		for i := range ms {
			ms[i].Line = l.Num
		}
		r.refs = append(r.refs, conv.RefOf(l, ms))
		return
	case clinetask.MessageType:
	default:
		return // (no line of the export)
	}
	ms := messages(v, conv.NoText)
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	if compaction(v.Get("message")) {
		st.Compactions++
		st.AddRecord(l)
	}
	if u := v.Get("message").Get("metrics").Get("tokens"); u.IsObject() {
		st.CountUsage("", conv.Usage{Input: int(u.Get("prompt").Int()), Output: int(u.Get("completion").Int()),
			CacheRead: int(u.Get("cached").Int())}, true)
	}
	if v.Get("sent").Bool() {
		r.refs = append(r.refs, conv.RefOf(l, ms))
	}
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = r.format
	if st.Format == "" {
		st.Format = conv.FormatClineTask
	}
	out := r.refs[:0:0]
	for _, x := range r.refs {
		if x.Msgs > 0 {
			out = append(out, x)
		}
	}
	return out
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	var ms []conv.Message
	switch v.Get("type").Str() {
	case clinetask.OpenType:
		ms = openResults(v, conv.WithText)
	case clinetask.MessageType:
		ms = messages(v, conv.WithText)
	default:
		return nil, fmt.Errorf("not a message of a task")
	}
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// compaction reports whether a message is one of the agent's summaries: Roo Code's isSummary
// message, Cline's call of summarize_task or condense (a native call or its text form).
func compaction(m jsonl.Value) bool {
	if m.Get("isSummary").Bool() {
		return true
	}
	if m.Get("role").Str() != "assistant" {
		return false
	}
	found := false
	m.Get("content").Each(func(_ string, b jsonl.Value) bool {
		switch b.Get("type").Str() {
		case "tool_use":
			n := b.Get("name").Str()
			found = n == "summarize_task" || n == "condense"
		case "text":
			t := b.Get("text").Text()
			found = strings.Contains(t, "<summarize_task>") || strings.Contains(t, "<condense>")
		}
		return !found
	})
	return found
}

// openResults are the results Cline sends for the calls a last assistant message left open.
func openResults(v jsonl.Value, text conv.TextMode) []conv.Message {
	var out []conv.Message
	v.Get("calls").Each(func(_ string, id jsonl.Value) bool {
		out = append(out, missing(id.Str(), text))
		return true
	})
	return out
}

// missing is the tool message Cline sends for a call it has no result of.
func missing(id string, text conv.TextMode) conv.Message {
	b := conv.LiteralBlock(clinetask.MissingResult, text)
	b.Kind, b.ID = conv.BlockToolResult, id
	return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
}

// messages is what one line's message sends: for a user message, its tool results as tool
// messages (Calls' order), then its other blocks; for an assistant, its texts and calls.
func messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	m := v.Get("message")
	role := m.Get("role").Str()
	if role != "user" && role != "assistant" {
		return nil
	}
	summary := m.Get("isSummary").Bool()
	content := m.Get("content")
	if content.IsString() {
		return []conv.Message{{Role: conv.Role(role), Summary: summary, Blocks: []conv.Block{conv.TextBlockV(conv.BlockText, content, text)}}}
	}
	edits := v.Get("edits")
	results := map[string]conv.Block{}
	var order []string
	cur := conv.Message{Role: conv.Role(role), Summary: summary}
	i := -1
	content.Each(func(_ string, p jsonl.Value) bool {
		i++
		edit := edits.Get(strconv.Itoa(i))
		switch p.Get("type").Str() {
		case "text":
			cur.Blocks = append(cur.Blocks, textOf(p.Get("text"), edit, text))
		case "tool_use":
			cur.Blocks = append(cur.Blocks, conv.ToolCallBlockV(p.Get("id").Str(), p.Get("name").Str(), p.Get("input"), text))
		case "tool_result":
			id := p.Get("tool_use_id").Str()
			if v.Get("dropResults").Bool() || dropped(v, id) {
				return true
			}
			if _, seen := results[id]; !seen {
				order = append(order, id)
			}
			results[id] = result(p, edit, text)
		case "image":
			cur.Blocks = append(cur.Blocks, conv.Block{Kind: conv.BlockImage})
		}
		return true
	})
	var out []conv.Message
	if calls := v.Get("calls"); calls.IsArray() {
		order = order[:0]
		calls.Each(func(_ string, id jsonl.Value) bool {
			order = append(order, id.Str())
			if _, ok := results[id.Str()]; !ok {
				results[id.Str()] = missing(id.Str(), text).Blocks[0]
			}
			return true
		})
	}
	for _, id := range order {
		out = append(out, conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{results[id]}})
	}
	if len(cur.Blocks) > 0 {
		out = append(out, cur)
	}
	return out
}

// dropped reports whether the export leaves out the tool result answering id.
func dropped(v jsonl.Value, id string) bool {
	found := false
	v.Get("drop").Each(func(_ string, d jsonl.Value) bool {
		found = d.Str() == id
		return !found
	})
	return found
}

// textOf is a text block: its edit when Cline edited it, else its text.
func textOf(t, edit jsonl.Value, text conv.TextMode) conv.Block {
	if edit.IsString() {
		return conv.TextBlockV(conv.BlockText, edit, text)
	}
	return conv.TextBlockV(conv.BlockText, t, text)
}

// result is a tool_result block as the Chat Completions request carries it: its content when a
// string, else its blocks' texts one a line (an image as Cline's note of it); an edit stands
// for the text of its first block.
func result(p, edit jsonl.Value, text conv.TextMode) conv.Block {
	b := conv.Block{Kind: conv.BlockToolResult, ID: p.Get("tool_use_id").Str()}
	c := p.Get("content")
	if c.IsString() {
		tb := conv.TextBlockV(conv.BlockText, c, text)
		b.Text, b.Chars = tb.Text, tb.Chars
		return b
	}
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	k := -1
	c.Each(func(_ string, part jsonl.Value) bool {
		k++
		if k > 0 {
			t.Lit("\n")
		}
		switch {
		case part.Get("type").Str() == "image":
			t.Lit("(see following user message for image)")
			b.Images++
		case k == 0 && edit.IsString():
			t.Lit(edit.Text())
		default:
			t.Lit(part.Get("text").Text())
		}
		return true
	})
	tb := t.Block()
	b.Text, b.Chars = tb.Text, tb.Chars
	return b
}

// Record is one line seen on its own (ctxc grep): its messages; a summary is a compaction record.
func Record(v jsonl.Value) conv.Record {
	if v.Get("type").Str() != clinetask.MessageType {
		return conv.Record{}
	}
	return conv.Record{Messages: messages(v, conv.SearchText), Compaction: compaction(v.Get("message"))}
}

// ReadOnly says why ctxc never writes into a task (its folder is the agent's state, which the
// extension rewrites whole).
const ReadOnly = "is a task of Cline, Roo Code or Kilo Code's extension, which ctxc only reads"

// The types of the export's lines (internal/agent/clinetask/clinetask's), for detection.
const (
	ClineHeader = clinetask.ClineHeader
	RooHeader   = clinetask.RooHeader
	MessageType = clinetask.MessageType
	OpenType    = clinetask.OpenType
)

// LineTypes tell a task of Cline or Kilo Code as ctxc exports it (its header, the line after
// calls left without a result, or a message line, which alone does not decide); RooLineTypes
// tell a task of Roo Code.
var (
	LineTypes    = []conv.LineType{{Type: ClineHeader}, {Type: OpenType}, {Type: MessageType, Message: true, Weak: true}}
	RooLineTypes = []conv.LineType{{Type: RooHeader}}
)

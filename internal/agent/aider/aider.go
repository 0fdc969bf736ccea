// Package aider is ctxc's code for Aider's chat history, as internal/agent/aider/aiderhist exports it: its
// reader, the decoder of one line and the writer of a compaction.
package aider

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Aider's chat history (.aider.chat.history.md) as internal/agent/aider/aiderhist exports
// it: one record a line, each on the line of the export numbered as the Markdown line it starts
// at, {"type":"aider","started":"<time>","session":N,"line":L} where a session starts (Aider's
// "# aider chat started at" line) and {"type":"aider","role":R,"content":C,"session":N,"line":L}
// for each message, cut from the Markdown as Aider's own utils.split_chat_history_markdown cuts
// it: "user" (its "#### " lines), "assistant" (the other lines), "tool" (its "> " lines: Aider's
// own output: notices, questions and answers, commands' output); lines that start with "# " are
// no message's.
//
// Reload rule (Aider 0.86, Coder's restore_chat_history): `aider --restore-chat-history` reads
// the whole file, every session, as its done messages: the user and assistant messages, in file
// order; its own output ("tool") is left out. Aider then summarizes them in the background when
// they are over its chat history budget, and writes nothing of that to the file: the context is
// the list before that summary. Aider writes no compaction record.
type reader struct {
	refs []conv.Ref
}

// RecordType is the type of every record of the export.
const RecordType = "aider"

// NewReader is a reader of one Aider chat history.
func NewReader() conv.Reader { return &reader{} }

// fields are the members of a record the reader uses.
type fields struct {
	role, content jsonl.Value
}

func fieldsOf(v jsonl.Value) fields {
	var f fields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "role":
			f.role = val
		case "content":
			f.content = val
		}
		return true
	})
	return f
}

// message is a record's message (ok false for a session's start).
func message(v jsonl.Value, text conv.TextMode) (conv.Message, bool) {
	f := fieldsOf(v)
	if !f.content.IsString() {
		return conv.Message{}, false
	}
	var role conv.Role
	switch f.role.Str() {
	case "user":
		role = conv.RoleUser
	case "assistant":
		role = conv.RoleAssistant
	case "tool":
		role = conv.RoleTool
	default:
		return conv.Message{}, false
	}
	return conv.Message{Role: role, Blocks: []conv.Block{conv.TextBlockV(conv.BlockText, f.content, text)}}, true
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	m, ok := message(jsonl.Value(doc.Raw), conv.NoText)
	if !ok {
		return
	}
	m.Line = l.Num
	st.CountMessage(&m)
	if m.Role == conv.RoleTool {
		return // Aider's own output: not restored
	}
	r.refs = append(r.refs, conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1})
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatAider
	return r.refs
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	m, ok := message(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw), conv.WithText)
	if !ok {
		return nil, fmt.Errorf("not an Aider message")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// Record is one record seen on its own (ctxc grep): its message, Aider's own output
// included (the history holds it).
func Record(v jsonl.Value) conv.Record {
	m, ok := message(v, conv.SearchText)
	if !ok {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}}
}

// ReadOnly says why ctxc never writes into Aider's chat history (Aider appends to it as it runs, and
// restores it whole); a compaction is written with -o, as a ctxc-format file.
const ReadOnly = "is an Aider chat history, which ctxc only reads"

// LineTypes tell the records ctxc reads Aider's chat history into.
var LineTypes = []conv.LineType{{Type: RecordType}}

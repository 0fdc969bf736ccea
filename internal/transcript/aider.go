package transcript

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/tidwall/gjson"
)

// aiderReader reads Aider's chat history (.aider.chat.history.md) as internal/aiderhist exports
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
type aiderReader struct {
	refs []ref
}

// aiderRecordType is the type of every record of the export.
const aiderRecordType = "aider"

func newAiderReader() *aiderReader { return &aiderReader{} }

// aiderFields are the members of a record the reader uses.
type aiderFields struct {
	role, content jsonl.Value
}

func aiderFieldsOf(v jsonl.Value) aiderFields {
	var f aiderFields
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

// aiderMessage is a record's message (ok false for a session's start).
func aiderMessage(v jsonl.Value, text textMode) (Message, bool) {
	f := aiderFieldsOf(v)
	if !f.content.IsString() {
		return Message{}, false
	}
	var role Role
	switch f.role.Str() {
	case "user":
		role = RoleUser
	case "assistant":
		role = RoleAssistant
	case "tool":
		role = RoleTool
	default:
		return Message{}, false
	}
	return Message{Role: role, Blocks: []Block{conv.TextBlockV(BlockText, f.content, text)}}, true
}

func (r *aiderReader) Add(l *scanLine, doc gjson.Result, st *Stats) {
	m, ok := aiderMessage(jsonl.Value(doc.Raw), conv.NoText)
	if !ok {
		return
	}
	m.Line = l.Num
	st.CountMessage(&m)
	if m.Role == RoleTool {
		return // Aider's own output: not restored
	}
	r.refs = append(r.refs, ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1})
}

func (r *aiderReader) Finish(st *Stats) []ref {
	st.Format = FormatAider
	return r.refs
}

func (r *aiderReader) Materialize(b []byte, x ref) ([]Message, error) {
	m, ok := aiderMessage(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw), conv.WithText)
	if !ok {
		return nil, fmt.Errorf("not an Aider message")
	}
	m.Line = x.LineNum()
	return []Message{m}, nil
}

// aiderRecord is one record seen on its own (ctxc grep): its message, Aider's own output
// included (the history holds it).
func aiderRecord(v jsonl.Value) Record {
	m, ok := aiderMessage(v, conv.SearchText)
	if !ok {
		return Record{}
	}
	return Record{Messages: []Message{m}}
}

// aiderWriter: ctxc never writes into Aider's chat history (Aider appends to it as it runs, and
// restores it whole); a compaction is written with -o, as a ctxc-format file.
type aiderWriter struct{}

func (aiderWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	return Written{}, &safewrite.ReadOnlyError{Path: src.Path, Reason: "is an Aider chat history, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

func (aiderWriter) New(src *Source, c *Compaction) (Written, error) {
	return markerWriter{source: FormatAider}.New(src, c)
}

// Package nanocoder is ctxc's code for Nanocoder's sessions, as internal/agent/nanocoder/nanocodersess exports
// them: their reader, the decoder of one line and the writer of a compaction.
package nanocoder

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Nanocoder sessions (<sessions>/<id>.json) as internal/agent/nanocoder/nanocodersess
// exports them: a header {"type":"nanocoder","sessionId","cwd","messages":N,...}, then each
// message of the session on a line: {"role","content":"...","tool_calls":[{"id","function":
// {"name","arguments":{...}}}],"tool_call_id","name","reasoning","structuredContent","images"}.
//
// Conversation (Nanocoder 1.30.0, what it sends the model on resume, `--resume ID`, `/resume`
// or its ACP session/load: the same rule): its system prompt, built anew, then the session's
// last nanocoderMaxMessages messages (capMessagesForModel: a cut that would start on a tool
// result starts at the call before it); the messages of role "system" join its system prompt;
// of the others (convertToModelMessages) a tool result whose call no message before it holds is
// left out; a tool result's text is its content (its structuredContent as JSON, when it has
// one), cut in its middle past nanocoderMaxResultChars; a user message's content and images; an
// assistant's content, when not empty, and its tool calls (its reasoning is not sent).
//
// Compaction (/compact, or its auto-compact past a share of the model's context): Nanocoder
// replaces the messages it summarized with one user message, "<conversation-summary>\n...\n
// </conversation-summary>\n\n(The above is an automated summary...)", followed by those it kept,
// and saves the session so: the file holds no more than what it resumes. Each such message
// counts as a compaction.
type reader struct {
	msgs []entry
}

// entry is one stored message: where it is, its role, its tool result's call id, the
// ids of its tool calls.
type entry struct {
	ref   conv.Ref
	role  string
	id    string
	calls []string
}

// HeaderType is the type of the export's first line (nanocodersess.HeaderType).
const HeaderType = "nanocoder"

// nanocoderMaxMessages is how many of the last messages Nanocoder sends (its
// nanocoder.sessions.maxMessages; ctxc takes the default).
const nanocoderMaxMessages = 1000

// nanocoderMaxResultChars is the length, in UTF-16 code units, past which Nanocoder cuts a tool
// result before it sends it (MAX_TOOL_RESULT_CHARS, truncateToolResult).
const nanocoderMaxResultChars = 20000

// nanocoderSummaryPrefix starts the user message of Nanocoder's compaction.
const nanocoderSummaryPrefix = "<conversation-summary>\n"

func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	if nanocoderHeader(v) {
		return
	}
	ms := nanocoderMessages(v, conv.NoText)
	// (strings of its own: the line's bytes may be a window of the file, unmapped after)
	e := entry{role: strings.Clone(v.Get("role").Str()), id: strings.Clone(v.Get("tool_call_id").Str())}
	v.Get("tool_calls").Each(func(_ string, c jsonl.Value) bool {
		e.calls = append(e.calls, strings.Clone(c.Get("id").Str()))
		return true
	})
	if nanocoderSummary(v) {
		st.Compactions++
		st.AddRecord(l)
	}
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	e.ref = conv.RefOf(l, ms)
	r.msgs = append(r.msgs, e)
}

// finish gives the messages Nanocoder sends: the last nanocoderMaxMessages, its results of no
// call before them left out.
func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatNanocoder
	start := 0
	if n := len(r.msgs); n > nanocoderMaxMessages {
		start = n - nanocoderMaxMessages
		for start > 0 && r.msgs[start].role == "tool" {
			start--
		}
	}
	seen := map[string]bool{}
	var out []conv.Ref
	for _, e := range r.msgs[start:] {
		switch {
		case e.role == "tool" && (e.id == "" || !seen[e.id]):
			continue
		case e.role == "assistant":
			for _, id := range e.calls {
				if id != "" {
					seen[id] = true
				}
			}
		}
		if e.ref.Msgs > 0 {
			out = append(out, e.ref)
		}
	}
	return out
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if !v.IsObject() || nanocoderHeader(v) {
		return nil, fmt.Errorf("not a Nanocoder message")
	}
	ms := nanocoderMessages(v, conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// nanocoderHeader: a line is the export's header.
func nanocoderHeader(v jsonl.Value) bool {
	return v.Get("type").Str() == HeaderType && !v.Get("role").Exists()
}

// nanocoderSummary: a stored message is the summary of Nanocoder's compaction.
func nanocoderSummary(v jsonl.Value) bool {
	if v.Get("role").Str() != "user" {
		return false
	}
	c := v.Get("content")
	return c.IsString() && strings.HasPrefix(c.Text(), nanocoderSummaryPrefix)
}

// nanocoderMessages is what one stored message sends, at most one message (none for a message
// of role "system", which joins the system prompt).
func nanocoderMessages(v jsonl.Value, text conv.TextMode) []conv.Message {
	role := v.Get("role").Str()
	content := v.Get("content")
	switch role {
	case "system":
		return nil
	case "tool":
		return []conv.Message{{Role: conv.RoleTool, Blocks: []conv.Block{nanocoderResult(v, text)}}}
	case "assistant":
		m := conv.Message{Role: conv.RoleAssistant}
		if nanocoderText(content) != "" {
			m.Blocks = append(m.Blocks, conv.TextBlockV(conv.BlockText, content, text))
		}
		v.Get("tool_calls").Each(func(_ string, c jsonl.Value) bool {
			f := c.Get("function")
			m.Blocks = append(m.Blocks, conv.ToolCallBlockV(c.Get("id").Str(), f.Get("name").Str(), f.Get("arguments"), text))
			return true
		})
		if len(m.Blocks) == 0 {
			return nil
		}
		return []conv.Message{m}
	}
	// user, and any other role, which Nanocoder sends as a user's
	m := conv.Message{Role: conv.RoleUser, Summary: nanocoderSummary(v)}
	if nanocoderText(content) != "" {
		m.Blocks = append(m.Blocks, conv.TextBlockV(conv.BlockText, content, text))
	}
	v.Get("images").Each(func(_ string, _ jsonl.Value) bool {
		m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockImage})
		return true
	})
	if len(m.Blocks) == 0 {
		return nil
	}
	return []conv.Message{m}
}

// nanocoderText is a message's content when it is a string ("" for anything else).
func nanocoderText(c jsonl.Value) string {
	if !c.IsString() {
		return ""
	}
	return c.Text()
}

// nanocoderResult is a tool result as Nanocoder sends it: its structuredContent as JSON when it
// has one and that JSON is not cut, else its content (or that JSON), cut past
// nanocoderMaxResultChars.
func nanocoderResult(v jsonl.Value, text conv.TextMode) conv.Block {
	b := conv.Block{Kind: conv.BlockToolResult, ID: v.Get("tool_call_id").Str(), Name: v.Get("name").Str()}
	var s string
	if sc := v.Get("structuredContent"); sc.Exists() {
		s = string(sc) // (compact: the export's line is)
	} else {
		s = nanocoderText(v.Get("content"))
	}
	s = nanocoderCut(s)
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit(s)
	tb := t.Block()
	b.Text, b.Chars = tb.Text, tb.Chars
	return b
}

// nanocoderCut is truncateToolResult: a text longer than nanocoderMaxResultChars UTF-16 code
// units keeps its first 40% and the rest of its budget from its end, a note of its length
// between them.
func nanocoderCut(s string) string {
	if len(s) <= nanocoderMaxResultChars { // (bytes: never fewer than UTF-16 code units)
		return s
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= nanocoderMaxResultChars {
		return s
	}
	marker := "\n... [Output truncated: " + strconv.Itoa(len(u)) +
		" characters total; request a narrower result to inspect omitted content] ...\n"
	budget := nanocoderMaxResultChars - utf8.RuneCountInString(marker) // (ASCII: one unit a rune)
	head := budget * 2 / 5
	tail := budget - head
	return nanocoderUTF16(u[:head]) + marker + nanocoderUTF16(u[len(u)-tail:])
}

// nanocoderUTF16 decodes UTF-16 code units as JavaScript's slices hold them: a surrogate cut
// from its pair becomes U+FFFD, as it does when Node encodes the string as UTF-8.
func nanocoderUTF16(u []uint16) string { return string(utf16.Decode(u)) }

// nanocoderRecord is one line seen on its own (ctxc grep): its message; the summary of a
// compaction is its record.
func Record(v jsonl.Value) conv.Record {
	if nanocoderHeader(v) {
		return conv.Record{}
	}
	return conv.Record{Messages: nanocoderMessages(v, conv.SearchText), Compaction: nanocoderSummary(v)}
}

// ReadOnly says why ctxc never writes into a Nanocoder session; a compaction is written with -o, as a
// ctxc-format file.
const ReadOnly = "is a Nanocoder session, which Nanocoder rewrites whole"

// LineTypes tell a session ctxc exports from Nanocoder's files by its header line.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}}

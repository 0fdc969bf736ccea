package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/tidwall/gjson"
)

// nanocoderReader reads Nanocoder sessions (<sessions>/<id>.json) as internal/nanocodersess
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
type nanocoderReader struct {
	msgs []nanocoderEntry
}

// nanocoderEntry is one stored message: where it is, its role, its tool result's call id, the
// ids of its tool calls.
type nanocoderEntry struct {
	ref   ref
	role  string
	id    string
	calls []string
}

// nanocoderHeaderType is the type of the export's first line (nanocodersess.HeaderType).
const nanocoderHeaderType = "nanocoder"

// nanocoderMaxMessages is how many of the last messages Nanocoder sends (its
// nanocoder.sessions.maxMessages; ctxc takes the default).
const nanocoderMaxMessages = 1000

// nanocoderMaxResultChars is the length, in UTF-16 code units, past which Nanocoder cuts a tool
// result before it sends it (MAX_TOOL_RESULT_CHARS, truncateToolResult).
const nanocoderMaxResultChars = 20000

// nanocoderSummaryPrefix starts the user message of Nanocoder's compaction.
const nanocoderSummaryPrefix = "<conversation-summary>\n"

func newNanocoderReader() *nanocoderReader { return &nanocoderReader{} }

func (r *nanocoderReader) add(l *scanLine, doc gjson.Result, st *Stats) {
	v := jsonl.Value(doc.Raw)
	if nanocoderHeader(v) {
		return
	}
	ms := nanocoderMessages(v, noText)
	// (strings of its own: the line's bytes may be a window of the file, unmapped after)
	e := nanocoderEntry{role: strings.Clone(v.Get("role").Str()), id: strings.Clone(v.Get("tool_call_id").Str())}
	v.Get("tool_calls").Each(func(_ string, c jsonl.Value) bool {
		e.calls = append(e.calls, strings.Clone(c.Get("id").Str()))
		return true
	})
	if nanocoderSummary(v) {
		st.Compactions++
		st.addRecord(l)
	}
	for i := range ms {
		ms[i].Line = l.Num
		st.countMessage(&ms[i])
	}
	e.ref = clineRef(l, ms)
	r.msgs = append(r.msgs, e)
}

// finish gives the messages Nanocoder sends: the last nanocoderMaxMessages, its results of no
// call before them left out.
func (r *nanocoderReader) finish(st *Stats) []ref {
	st.Format = FormatNanocoder
	start := 0
	if n := len(r.msgs); n > nanocoderMaxMessages {
		start = n - nanocoderMaxMessages
		for start > 0 && r.msgs[start].role == "tool" {
			start--
		}
	}
	seen := map[string]bool{}
	var out []ref
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
		if e.ref.msgs > 0 {
			out = append(out, e.ref)
		}
	}
	return out
}

func (r *nanocoderReader) materialize(b []byte, x ref) ([]Message, error) {
	v := jsonl.Value(gjson.Parse(unsafeString(b)).Raw)
	if !v.IsObject() || nanocoderHeader(v) {
		return nil, fmt.Errorf("not a Nanocoder message")
	}
	ms := nanocoderMessages(v, withText)
	for i := range ms {
		ms[i].Line = x.lineNum()
	}
	return ms, nil
}

// nanocoderHeader: a line is the export's header.
func nanocoderHeader(v jsonl.Value) bool {
	return v.Get("type").Str() == nanocoderHeaderType && !v.Get("role").Exists()
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
func nanocoderMessages(v jsonl.Value, text textMode) []Message {
	role := v.Get("role").Str()
	content := v.Get("content")
	switch role {
	case "system":
		return nil
	case "tool":
		return []Message{{Role: RoleTool, Blocks: []Block{nanocoderResult(v, text)}}}
	case "assistant":
		m := Message{Role: RoleAssistant}
		if nanocoderText(content) != "" {
			m.Blocks = append(m.Blocks, textBlockV(BlockText, content, text))
		}
		v.Get("tool_calls").Each(func(_ string, c jsonl.Value) bool {
			f := c.Get("function")
			m.Blocks = append(m.Blocks, toolCallBlockV(c.Get("id").Str(), f.Get("name").Str(), f.Get("arguments"), text))
			return true
		})
		if len(m.Blocks) == 0 {
			return nil
		}
		return []Message{m}
	}
	// user, and any other role, which Nanocoder sends as a user's
	m := Message{Role: RoleUser, Summary: nanocoderSummary(v)}
	if nanocoderText(content) != "" {
		m.Blocks = append(m.Blocks, textBlockV(BlockText, content, text))
	}
	v.Get("images").Each(func(_ string, _ jsonl.Value) bool {
		m.Blocks = append(m.Blocks, Block{Kind: BlockImage})
		return true
	})
	if len(m.Blocks) == 0 {
		return nil
	}
	return []Message{m}
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
func nanocoderResult(v jsonl.Value, text textMode) Block {
	b := Block{Kind: BlockToolResult, ID: v.Get("tool_call_id").Str(), Name: v.Get("name").Str()}
	var s string
	if sc := v.Get("structuredContent"); sc.Exists() {
		s = string(sc) // (compact: the export's line is)
	} else {
		s = nanocoderText(v.Get("content"))
	}
	s = nanocoderCut(s)
	t := piText{text: text.on(), noCount: text == searchText}
	t.lit(s)
	tb := t.block()
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
func nanocoderRecord(v jsonl.Value) Record {
	if nanocoderHeader(v) {
		return Record{}
	}
	return Record{Messages: nanocoderMessages(v, searchText), Compaction: nanocoderSummary(v)}
}

// nanocoderWriter: ctxc never writes into a Nanocoder session; a compaction is written with -o,
// as a ctxc-format file.
type nanocoderWriter struct{}

func (nanocoderWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	return Written{}, &safewrite.ReadOnlyError{Path: src.Path, Reason: "is a Nanocoder session, which Nanocoder rewrites whole",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

func (nanocoderWriter) New(src *Source, c *Compaction) (Written, error) {
	return markerWriter{source: FormatNanocoder}.New(src, c)
}

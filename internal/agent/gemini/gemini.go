// Package gemini is ctxc's code for Gemini CLI's sessions: their reader, the decoder of one line
// and the writer of a compaction (a new session from messages stays with the handoff rendering,
// in internal/transcript).
package gemini

import (
	"slices"
	"strings"
	"unicode"
	"unsafe"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads Gemini CLI sessions (~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl,
// docs/formats.md), as Gemini CLI 0.61's loadConversationRecord does.
//
// Records, one a line:
//   - the header {"sessionId","projectHash","startTime","lastUpdated","kind",...};
//   - message records {"id","timestamp","type","content",...}: type "user" (content: Gemini API
//     parts), "gemini" (content, "thoughts" [{subject,description}], "toolCalls"
//     [{id,name,args,result}], "tokens" {input,output,cached,thoughts,tool,total}, "model"),
//     "info", "error", "warning". A message is written again, whole, each time it changes
//     (its usage, its tool calls and their results): the newest record of an id is the message,
//     at the place of its first record;
//   - {"$set":{...}} metadata updates; a $set with "messages" replaces the whole list (Gemini
//     CLI writes it on resume, after a rollback and after its chat compression);
//   - {"$rewindTo":"<id>"}: the message with that id and every later one are removed (the
//     whole list when the id is unknown).
//
// Conversation (Gemini CLI's convertSessionToClientHistory): info, error and warning messages
// are none; a user message whose text is empty or starts with "/", "?", "<session_context>" or
// "<hook_context>" is none (slash commands, and the context Gemini CLI injects anew on each
// start); a gemini message is its content's parts — when they hold no function call and no
// thought, its thoughts first (as thinking, "**subject** description"), then the content, then
// one function call per tool call — followed, when tool calls have a result, by a message of
// those results (a string result is {"output": result}).
//
// conv.Compaction: Gemini CLI's chat compression replaces the history with a user message holding
// the summary (a <state_snapshot>), the model's "Got it." and the kept messages, written as a
// $set of messages: such a $set that brings in a new summary message counts as a compaction.
//
// Statistics count each message id once, in its newest version. Simplifications
// (docs/formats.md): ids are compared by a 64-bit hash; the older one-JSON-document .json form
// is not read (Gemini CLI turns it into a .jsonl on resume).
type reader struct {
	ids     geminiIDs        // every message id read, in the order first read
	index   map[uint64]int32 // an id's hash: its place in ids
	entries []int32          // the current message list, in order: places in ids
	walk    Pre              // the walk of a record that no range worker walked
}

// geminiID is a message id: what its newest record counted in the statistics (taken back when
// a newer record of the id replaces it), where that record is (a line, or a message conv.Object
// inside a $set line) and its place in the current list.
type geminiID struct {
	c     geminiCounted
	off   int64
	size  int32
	line  int32
	pos   int32 // its place in entries, -1 when not in the current list
	usage bool  // its usage is counted (once per id)
}

// geminiCounted is what a message record adds to the statistics: the messages it yields (n, at
// most 2) and their figures.
type geminiCounted struct {
	chars                  int64
	calls, results, images int32
	tokens                 [2]int32
	roles, kinds           [2]uint8 // indexes into geminiRoles, BlockKinds
	n                      int8
}

// geminiIDChunk is the size of geminiIDs' chunks.
const geminiIDChunk = 4096

// geminiIDs holds the ids in chunks: appending never copies what is stored, and the ids of a
// long session (hundreds of thousands) are not moved again and again as a slice grows.
type geminiIDs struct {
	chunks [][]geminiID
	n      int32
}

func (s *geminiIDs) at(i int32) *geminiID { return &s.chunks[i/geminiIDChunk][i%geminiIDChunk] }

// add appends a new id, in no list yet, and returns its place.
func (s *geminiIDs) add() int32 {
	if s.n%geminiIDChunk == 0 {
		s.chunks = append(s.chunks, make([]geminiID, geminiIDChunk))
	}
	i := s.n
	s.n++
	s.at(i).pos = -1
	return i
}

var geminiRoles = [...]conv.Role{conv.RoleUser, conv.RoleAssistant, conv.RoleTool, conv.RoleSystem, conv.RoleDeveloper}

func geminiRoleIndex(r conv.Role) uint8 {
	for i, x := range geminiRoles {
		if x == r {
			return uint8(i)
		}
	}
	return 0
}

// Gemini CLI's rule for user messages it does not send back on resume (isIgnoredUserContent).
func geminiIgnoredUser(t string) bool {
	return t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") ||
		strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>")
}

func newReader() *reader {
	return &reader{index: map[uint64]int32{}}
}

// NewReader is a reader of one Gemini CLI session.
func NewReader() conv.Reader { return newReader() }

// geminiFields are the top-level members of a record the reader uses.
type geminiFields struct {
	id, typ, content, thoughts, toolCalls, tokens, set, rewind, sessionID, projectHash, messages jsonl.Value
}

func geminiFieldsOf(v jsonl.Value) geminiFields {
	var f geminiFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "id":
			f.id = val
		case "type":
			f.typ = val
		case "content":
			f.content = val
		case "thoughts":
			f.thoughts = val
		case "toolCalls":
			f.toolCalls = val
		case "tokens":
			f.tokens = val
		case "$set":
			f.set = val
		case "$rewindTo":
			f.rewind = val
		case "sessionId":
			f.sessionID = val
		case "projectHash":
			f.projectHash = val
		case "messages":
			f.messages = val
		}
		return true
	})
	return f
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	if p, ok := l.Walk().(*Pre); ok {
		r.apply(l, p, l.Offset, int32(l.Size), st)
		return
	}
	v := jsonl.Value(doc.Raw)
	f := geminiFieldsOf(v)
	switch {
	case f.rewind.IsString():
		r.rewind(conv.IDKey(f.rewind.Str()))
	case f.id.IsString():
		r.message(l, v, st, false)
	case f.set.IsObject():
		if msgs := f.set.Get("messages"); msgs.IsArray() {
			r.clear()
			r.messages(l, msgs, st)
		}
	case f.sessionID.IsString() && f.projectHash.IsString() && f.messages.IsArray():
		r.messages(l, f.messages, st) // the older whole-session form, on one line
	}
}

// messages adds the message objects of a $set (or header) line.
func (r *reader) messages(l *conv.Line, msgs jsonl.Value, st *conv.Stats) {
	compacted := false
	msgs.Each(func(_ string, m jsonl.Value) bool {
		if !m.IsObject() {
			return true
		}
		f := geminiFieldsOf(m)
		if f.id.IsString() && r.message(l, m, st, true) {
			compacted = true
		}
		return true
	})
	if compacted {
		st.Compactions++
		st.AddRecord(l)
	}
}

// Pre is what a message record adds, from the record alone: a range worker computes it
// ahead of the reader (preparse), which then only applies it.
type Pre struct {
	key      uint64
	c        geminiCounted
	summary  bool // it opens with a compression summary
	hasUsage bool
	usage    conv.Usage
}

// Preparse walks a message line ahead of the reader into p, and reports whether it is one.
func Preparse(l *conv.Line, p *Pre) bool {
	return geminiWalk(p, jsonl.Value(gjson.Parse(conv.UnsafeString(l.Bytes)).Raw))
}

// message records a message record v (the line, or an conv.Object inside it: sub). It reports a new
// compression summary.
func (r *reader) message(l *conv.Line, v jsonl.Value, st *conv.Stats, sub bool) (summary bool) {
	off, size := l.Offset, int32(l.Size)
	if sub {
		off, size = subValueSpan(l, v)
	}
	geminiWalk(&r.walk, v)
	return r.apply(l, &r.walk, off, size, st)
}

// apply puts a walked message record at off (size bytes) into the list and the statistics: a
// new id at the list's end, a known one in its place (at the end again when a rewind or a $set
// took it out), its earlier record's figures taken back. It reports a new compression summary.
func (r *reader) apply(l *conv.Line, p *Pre, off int64, size int32, st *conv.Stats) (summary bool) {
	i, seen := r.index[p.key]
	if !seen {
		i = r.ids.add()
		r.index[p.key] = i
	}
	d := r.ids.at(i)
	if seen {
		r.uncount(st, d.c, int(d.line))
	}
	r.count(st, p.c, l.Num)
	d.c, d.off, d.size, d.line = p.c, off, size, int32(l.Num)
	if d.pos < 0 {
		d.pos = int32(len(r.entries))
		r.entries = append(r.entries, i)
	}
	if p.hasUsage {
		u := p.usage
		if d.usage {
			st.Usage.LastContext = u.Input + u.CacheRead + u.CacheWrite // a response counted once
		} else {
			st.CountUsage("", u, true)
			d.usage = true
		}
	}
	return !seen && p.summary
}

func geminiUsage(t jsonl.Value) conv.Usage {
	var in, out, cached, thoughts int64
	t.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "input":
			in = v.Int()
		case "output":
			out = v.Int()
		case "cached":
			cached = v.Int()
		case "thoughts":
			thoughts = v.Int()
		}
		return true
	})
	return conv.Usage{Input: int(max(in-cached, 0)), Output: int(out + thoughts), CacheRead: int(cached)}
}

func (r *reader) count(st *conv.Stats, c geminiCounted, line int) {
	for i := 0; i < int(c.n); i++ {
		st.Messages.Add(geminiRoles[c.roles[i]])
		st.Tokens += int64(c.tokens[i])
		st.TellCounted(conv.Counted{Line: line, Role: geminiRoles[c.roles[i]], Tokens: int(c.tokens[i])})
	}
	st.ToolCalls += int(c.calls)
	st.ToolResults += int(c.results)
	st.Images += int(c.images)
	st.Chars += c.chars
}

func (r *reader) uncount(st *conv.Stats, c geminiCounted, line int) {
	for i := 0; i < int(c.n); i++ {
		st.Messages.Sub(geminiRoles[c.roles[i]])
		st.Tokens -= int64(c.tokens[i])
		st.TellCounted(conv.Counted{Line: line, Role: geminiRoles[c.roles[i]], Tokens: -int(c.tokens[i]), Retracted: true})
	}
	st.ToolCalls -= int(c.calls)
	st.ToolResults -= int(c.results)
	st.Images -= int(c.images)
	st.Chars -= c.chars
}

// rewind removes the message with that key and every later one; all of them when it is not in
// the list.
func (r *reader) rewind(key uint64) {
	i, ok := r.index[key]
	if !ok || r.ids.at(i).pos < 0 {
		r.clear()
		return
	}
	r.drop(r.ids.at(i).pos)
}

func (r *reader) clear() { r.drop(0) }

// drop removes the entries from p on.
func (r *reader) drop(p int32) {
	for _, i := range r.entries[p:] {
		r.ids.at(i).pos = -1
	}
	r.entries = r.entries[:p]
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatGemini
	if st.TopN > 0 {
		r.pushTop(st)
	}
	refs := make([]conv.Ref, 0, len(r.entries))
	for _, i := range r.entries {
		d := r.ids.at(i)
		if d.c.n > 0 {
			refs = append(refs, conv.Ref{Off: d.off, Size: d.size, Line: d.line, Tokens: d.c.tokens[0] + d.c.tokens[1], Msgs: int32(d.c.n)})
		}
	}
	return refs
}

// pushTop offers every id's messages, in their newest records, to the largest messages.
func (r *reader) pushTop(st *conv.Stats) {
	var top []conv.TopMessage
	for i := range r.ids.n {
		d := r.ids.at(i)
		for k := 0; k < int(d.c.n); k++ {
			if d.c.tokens[k] > 0 {
				top = append(top, conv.TopMessage{Line: int(d.line), Role: geminiRoles[d.c.roles[k]], Tokens: int(d.c.tokens[k]), Kind: conv.BlockKind(d.c.kinds[k]).String()})
			}
		}
	}
	slices.SortFunc(top, func(a, b conv.TopMessage) int { // in file order, as other readers push them
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Tokens != b.Tokens {
			return a.Tokens - b.Tokens
		}
		return strings.Compare(string(a.Role)+a.Kind, string(b.Role)+b.Kind)
	})
	for _, t := range top {
		st.PushTop(t)
	}
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	ms := geminiRecordMessages(geminiFieldsOf(v), conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// subValueSpan is where v, a value inside line l, is in the file. The line's Bytes lack a
// byte-order mark that the file may have before them: the bytes it occupies beyond Bytes are
// the mark (3) and the line end (0 to 2).
func subValueSpan(l *conv.Line, v jsonl.Value) (int64, int32) {
	start := int64(uintptr(unsafe.Pointer(unsafe.StringData(string(v)))) - uintptr(unsafe.Pointer(unsafe.SliceData(l.Bytes))))
	if l.Size-len(l.Bytes) >= 3 {
		start += 3
	}
	return l.Offset + start, int32(len(v))
}

// geminiRecordMessages is what a message record yields in the conversation.
func geminiRecordMessages(f geminiFields, text conv.TextMode) []conv.Message {
	switch f.typ.Str() {
	case "user":
		if geminiIgnoredUser(geminiContentPrefix(f.content)) {
			return nil
		}
		m := conv.GeminiContentMessage("user", f.content, text)
		m.Summary = conv.GeminiSummaryParts(f.content)
		return []conv.Message{m}
	case "gemini":
		return geminiModelMessages(f, text)
	}
	return nil
}

// geminiContentPrefix is the start of a content's text as Gemini CLI renders it to decide
// whether to send it (partListUnionToString), leading white space trimmed.
func geminiContentPrefix(c jsonl.Value) string {
	var g geminiPrefix
	conv.GeminiEachPart(c, g.add)
	return g.String()
}

// geminiPrefix builds geminiContentPrefix part by part, in a buffer of its own (a user record's
// walk allocates nothing for it): parts are added while it holds under 64 bytes, and a part
// adds at most 256 (conv.ValuePrefix's bound; escapes decode to fewer bytes than they take).
type geminiPrefix struct {
	buf [64 + 256]byte
	n   int
}

func (g *geminiPrefix) add(p jsonl.Value) {
	if p.IsString() || g.n >= 64 {
		g.addOf(p, nil)
		return
	}
	f := conv.GeminiPartOf(p)
	g.addOf(p, &f)
}

// addOf adds part p, whose members are f when it is not a string.
func (g *geminiPrefix) addOf(p jsonl.Value, f *conv.GeminiPart) {
	if g.n >= 64 {
		return
	}
	if p.IsString() {
		g.write(trimLeftIf(conv.ValuePrefix(p, 256), g.n == 0))
		return
	}
	switch {
	case f.Thought.Exists():
		g.write("[Thought: ")
	case f.Call.Exists():
		g.write("[Function Call: ")
	case f.Response.Exists():
		g.write("[Function Response: ")
	case f.Inline.Exists():
		g.write("[Media: ")
	default:
		g.write(trimLeftIf(conv.ValuePrefix(f.Text, 256), g.n == 0))
	}
}

func (g *geminiPrefix) write(s string) { g.n += copy(g.buf[g.n:], s) }

func (g *geminiPrefix) String() string { return strings.TrimSpace(string(g.buf[:g.n])) }

func trimLeftIf(s string, trim bool) string {
	if trim {
		return strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	return s
}

// geminiCall is a recorded tool call's members.
type geminiCall struct{ id, name, args, result jsonl.Value }

// geminiCalls reads the tool calls.
func geminiCalls(calls jsonl.Value) []geminiCall {
	var out []geminiCall
	calls.Each(func(_ string, tc jsonl.Value) bool {
		out = append(out, geminiCallOf(tc))
		return true
	})
	return out
}

// geminiCallOf reads a tool call's members.
func geminiCallOf(tc jsonl.Value) geminiCall {
	c, _ := geminiCallAt(tc)
	return c
}

// geminiCallAt reads the tool call that starts at rest (which may go on past it) in one walk:
// its members and its length (it holds its result, often the larger part).
func geminiCallAt(rest jsonl.Value) (geminiCall, int) {
	var c geminiCall
	n := rest.Walk(func(k string, v jsonl.Value) int {
		var dst *jsonl.Value
		switch k {
		case "id":
			dst = &c.id
		case "name":
			dst = &c.name
		case "args":
			dst = &c.args
		case "result":
			dst = &c.result
		default:
			return -1
		}
		val, n := v.Prefix()
		*dst = val
		return n
	})
	return c, n
}

// geminiModelContent is a gemini message's content, none when it is empty or a falsy value.
func geminiModelContent(c jsonl.Value) jsonl.Value {
	if c.Exists() && c != `""` && !c.IsNull() && c != "false" && c != "0" {
		return c
	}
	return ""
}

// geminiModelMessages is a gemini message: the model's message and the results of its calls.
func geminiModelMessages(f geminiFields, text conv.TextMode) []conv.Message {
	m := conv.GeminiContentMessage("model", geminiModelContent(f.content), text)
	calls := geminiCalls(f.toolCalls)
	own := false
	for i := range m.Blocks {
		if k := m.Blocks[i].Kind; k == conv.BlockToolCall || k == conv.BlockThinking {
			own = true
		}
	}
	if !own {
		var blocks []conv.Block
		f.thoughts.Each(func(_ string, t jsonl.Value) bool {
			blocks = append(blocks, geminiThought(t, text))
			return true
		})
		blocks = append(blocks, m.Blocks...)
		for _, c := range calls {
			blocks = append(blocks, conv.ToolCallBlockV(c.id.Str(), c.name.Str(), c.args, text))
		}
		m.Blocks = blocks
	}
	var out []conv.Message
	if len(m.Blocks) > 0 {
		out = append(out, m)
		if res := geminiResults(calls, text); len(res.Blocks) > 0 {
			out = append(out, res)
		}
	}
	return out
}

// geminiThought is a recorded thought as Gemini CLI replays it: "**subject** description".
func geminiThought(t jsonl.Value, text conv.TextMode) conv.Block {
	var subject, desc jsonl.Value
	t.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "subject":
			subject = v
		case "description":
			desc = v
		}
		return true
	})
	if subject.IsString() && subject != `""` {
		pt := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
		pt.Lit("**")
		pt.Val(subject)
		pt.Lit("** ")
		pt.Val(desc)
		b := pt.Block()
		b.Kind = conv.BlockThinking
		return b
	}
	return conv.TextBlockV(conv.BlockThinking, desc, text)
}

// geminiResults is the message of the tool calls' results.
func geminiResults(calls []geminiCall, text conv.TextMode) conv.Message {
	m := conv.Message{Role: conv.RoleUser}
	for _, c := range calls {
		geminiEachResultBlock(c, text, func(b conv.Block) { m.Blocks = append(m.Blocks, b) })
	}
	if len(m.Blocks) > 0 && m.ToolResults() == len(m.Blocks) {
		m.Role = conv.RoleTool
	}
	return m
}

// geminiEachResultBlock calls fn with the blocks of a tool call's result: a string result is
// {"output": result}, an array its parts, an conv.Object the part itself.
func geminiEachResultBlock(c geminiCall, text conv.TextMode, fn func(conv.Block)) {
	switch res := c.result; {
	case res.IsString() && res != `""`:
		b := conv.ContentResultV(res, text)
		b.ID, b.Name = c.id.Str(), c.name.Str()
		fn(b)
	case res.IsArray():
		res.Walk(func(_ string, r jsonl.Value) int {
			p, f, n := conv.GeminiPartAt(r)
			fn(conv.GeminiPartBlockAt(p, f, text))
			return n
		})
	case res.IsObject():
		fn(conv.GeminiPartBlockOf(res, conv.GeminiPartOf(res), text))
	}
}

// Record decodes one line of a Gemini CLI session on its own (grep, search): a message record's
// messages; a $set of messages is copies of earlier messages, except a compression summary it
// brings.
func Record(v jsonl.Value) conv.Record {
	f := geminiFieldsOf(v)
	if f.id.IsString() {
		return conv.Record{Messages: geminiRecordMessages(f, conv.SearchText)}
	}
	var rec conv.Record
	f.set.Get("messages").Each(func(_ string, m jsonl.Value) bool {
		for _, msg := range geminiRecordMessages(geminiFieldsOf(m), conv.SearchText) {
			if msg.Summary {
				rec.Compaction = true
				rec.Messages = append(rec.Messages, msg)
			}
		}
		return true
	})
	if rec.Compaction {
		rec.Meta = conv.MetaOf(v.Get("ctxc"))
	}
	return rec
}

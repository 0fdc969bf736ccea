// Package pi is ctxc's code for pi's sessions: their reader, the decoder of one line and the
// writer of a compaction (a new session from messages stays with the handoff rendering, in
// internal/transcript).
package pi

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads pi coding agent sessions (v1–v3) and OpenClaw transcripts (docs/formats.md).
//
// Entries are the valid JSON lines, the header {"type":"session",...} included at index 0 (as in
// pi's own loader). v1 files (no "version") are linear and carry no ids; v2/v3 entries form a
// tree through id/parentId.
//
// Conversation:
//   - message entries: user (string or text/image blocks); assistant (text, thinking — the
//     signature is not counted —, toolCall{id,name,arguments}, image); toolResult → a tool
//     message with one result (toolCallId, toolName, isError); bashExecution → a user message
//     with pi's own text for the model ("Ran `cmd`" + fenced output + exit code); custom and
//     v2 hookMessage → a user message; branchSummary/compactionSummary → a user message with
//     pi's summary wrapper;
//   - custom_message entries (OpenClaw and extensions) → a user message, whatever "display";
//   - branch_summary entries → a user message with pi's branch-summary wrapper;
//   - compaction entries → the summary as a user message (Summary:true) with pi's wrapper "The
//     conversation history before this point was compacted into the following summary: …".
//
// A message without content blocks (an aborted assistant turn with content:[]) is no message.
// Usage of assistant messages {input,output,cacheRead,cacheWrite} is recorded per entry id
// (all-zero usage of aborted turns is skipped).
//
// Metadata: the header, model_change, thinking_level_change, custom (OpenClaw model-snapshot,
// extension state), label, session_info and unknown entries.
//
// Reload rule (pi buildSessionContext): the leaf is the last entry of the file; the path is the
// leaf and its parentId ancestors (v1: every entry). The last compaction on the path starts the
// context: its summary, then the path entries from firstKeptEntryId (v1: firstKeptEntryIndex,
// an index into the entries) up to the compaction, then the path entries after it; compaction
// entries inside the kept range are not re-emitted. Without a compaction the whole path counts.
// As pi's LLM conversion does, assistant messages that ended in error or were aborted, and
// bash executions marked excludeFromContext, are left out of the effective context (they are
// still counted in the history).
//
// Simplifications (docs/formats.md): a file whose first line is not a header is read anyway (pi
// would discard and restart it); ids are compared by a 64-bit hash.
type reader struct {
	d       *Dialect
	version int       // header version; 1 when absent
	header  int32     // entry index of the header, -1 before it
	entries []piEntry // every valid JSON line, in file order
	ids     map[uint64]int32
	comps   map[int32]piComp // compaction entries by entry index
}

// piEntry is what the reader keeps per entry (32 bytes).
type piEntry struct {
	off    int64
	parent uint64 // key of parentId (see piHasParent)
	size   int32
	line   int32
	tokens int32 // tokens of the message it yields in a context
	flags  uint8
}

const (
	piEmits     uint8 = 1 << iota // yields a message in a context
	piCompact                     // a compaction entry
	piHasParent                   // parent holds the key of a parentId
)

type piComp struct {
	kept      uint64 // key of firstKeptEntryId (v2/v3)
	keptIndex int64  // firstKeptEntryIndex (v1)
	hasKept   bool
	tokens    int32 // tokens of the summary message
}

// Selectors of pi refs.
const (
	piSelEntry   uint8 = iota // the message the entry yields
	piSelSummary              // the compaction entry's summary message
)

// pi's wrappers for summaries sent to the model (coding-agent messages.ts).
const (
	CompactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSuffix = "\n</summary>"
	BranchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSuffix     = "</summary>"
)

// A Dialect is what a descendant of pi (Oh My Pi) changes of pi's sessions, whose entries it
// keeps: its format, the texts it sends around a compaction's and a branch's summary, how it
// renders them, and a line it writes above the session's header.
type Dialect struct {
	Format conv.Format
	// Summary gives the texts around a compaction's summary, by the compaction's "method".
	Summary func(method string) (head, tail string)
	// BranchHead and BranchTail are the texts around a branch's summary.
	BranchHead, BranchTail string
	// Render, if set, is how the agent renders a wrapped summary before it sends it (else as
	// the summary stands between the texts).
	Render func(string) string
	// Title, if set, is the type of a metadata line above the session's header.
	Title string
}

// Pi is pi's own dialect: its wrappers (coding-agent messages.ts).
var Pi = &Dialect{Format: conv.FormatPi, BranchHead: BranchPrefix, BranchTail: BranchSuffix,
	Summary: func(string) (string, string) { return CompactionPrefix, CompactionSuffix }}

// NewReader is a reader of one pi session.
func NewReader() conv.Reader { return Pi.NewReader() }

// NewReader is a reader of one session of the dialect.
func (d *Dialect) NewReader() conv.Reader {
	return &reader{d: d, version: 1, header: -1, ids: map[uint64]int32{}, comps: map[int32]piComp{}}
}

// piFields are the top-level fields of an entry the reader uses, found in one pass.
type piFields struct {
	typ, id, parentID, version, message, content, summary, keptID, keptIndex, method jsonl.Value
}

func piEntryFields(v jsonl.Value) piFields {
	var f piFields
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "type":
			f.typ = val
		case "id":
			f.id = val
		case "parentId":
			f.parentID = val
		case "version":
			f.version = val
		case "message":
			f.message = val
		case "content":
			f.content = val
		case "summary":
			f.summary = val
		case "firstKeptEntryId":
			f.keptID = val
		case "firstKeptEntryIndex":
			f.keptIndex = val
		case "method":
			f.method = val
		}
		return true
	})
	return f
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	idx := int32(len(r.entries))
	e := piEntry{off: l.Offset, size: int32(l.Size), line: int32(l.Num)}
	f := piEntryFields(jsonl.Value(doc.Raw))
	typ := f.typ.Str()
	if typ == "session" && r.header < 0 {
		r.header = idx
		if v := f.version.Int(); v > 1 && v < 1<<20 {
			r.version = int(v)
		}
		r.entries = append(r.entries, e)
		return
	}
	if f.id.IsString() {
		r.ids[conv.EntryKey(f.id.Str())] = idx
	}
	if f.parentID.IsString() {
		e.parent = conv.EntryKey(f.parentID.Str())
		e.flags |= piHasParent
	}
	if typ == "compaction" {
		st.Compactions++
		st.AddRecord(l)
		sm := r.d.summaryMessage(f.summary, f.method, conv.NoText)
		sm.Line = l.Num
		st.CountMessage(&sm)
		c := piComp{tokens: int32(sm.Tokens())}
		if f.keptID.IsString() {
			c.kept, c.hasKept = conv.EntryKey(f.keptID.Str()), true
		} else if conv.IsNumber(f.keptIndex) {
			c.keptIndex, c.hasKept = f.keptIndex.Int(), true
		}
		r.comps[idx] = c
		e.flags |= piCompact
		r.entries = append(r.entries, e)
		return
	}
	m, emit := r.d.entryMessage(typ, f, conv.NoText)
	if len(m.Blocks) > 0 {
		m.Line = l.Num
		st.CountMessage(&m)
		if emit {
			e.flags |= piEmits
			e.tokens = int32(m.Tokens())
		}
		if m.Usage != nil {
			st.CountUsage(strings.Clone(f.id.Str()), *m.Usage, true)
		}
	}
	r.entries = append(r.entries, e)
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = r.d.Format
	path := r.path()
	comp := -1
	for i, idx := range path {
		if r.entries[idx].flags&piCompact != 0 {
			comp = i
		}
	}
	var refs []conv.Ref
	emit := func(idx int32) {
		e := r.entries[idx]
		if e.flags&piEmits != 0 {
			refs = append(refs, conv.Ref{Off: e.off, Size: e.size, Line: e.line, Tokens: e.tokens, Msgs: 1, Sel: piSelEntry})
		}
	}
	if comp < 0 {
		for _, idx := range path {
			emit(idx)
		}
		return refs
	}
	ci := path[comp]
	c := r.comps[ci]
	ce := r.entries[ci]
	refs = append(refs, conv.Ref{Off: ce.off, Size: ce.size, Line: ce.line, Tokens: c.tokens, Msgs: 1, Sel: piSelSummary})
	first := int32(-1)
	if c.hasKept {
		if r.version < 2 {
			if c.keptIndex > 0 && c.keptIndex < int64(len(r.entries)) && int32(c.keptIndex) != r.header {
				first = int32(c.keptIndex)
			}
		} else if k, ok := r.ids[c.kept]; ok {
			first = k
		}
	}
	found := false
	for i := 0; i < comp; i++ {
		if path[i] == first {
			found = true
		}
		if found {
			emit(path[i])
		}
	}
	for _, idx := range path[comp+1:] {
		emit(idx)
	}
	return refs
}

// path returns the entry indexes from the root to the leaf (the last entry of the file).
func (r *reader) path() []int32 {
	var path []int32
	if r.version < 2 {
		for i := range r.entries {
			if int32(i) != r.header {
				path = append(path, int32(i))
			}
		}
		return path
	}
	leaf := int32(len(r.entries) - 1)
	if leaf < 0 || leaf == r.header {
		return nil
	}
	for cur := leaf; len(path) <= len(r.entries); {
		path = append(path, cur)
		e := r.entries[cur]
		if e.flags&piHasParent == 0 {
			break
		}
		p, ok := r.ids[e.parent]
		if !ok || p == r.header {
			break
		}
		cur = p
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	f := piEntryFields(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)) // as add sees it: from the first { on
	if x.Sel == piSelSummary {
		m := r.d.summaryMessage(f.summary, f.method, conv.WithText)
		m.Line = x.LineNum()
		return []conv.Message{m}, nil
	}
	m, _ := r.d.entryMessage(f.typ.Str(), f, conv.WithText)
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation entry")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// summaryMessage is a compaction summary as the agent sends it to the model (method: the
// compaction's).
func (d *Dialect) summaryMessage(summary, method jsonl.Value, text conv.TextMode) conv.Message {
	head, tail := d.Summary(method.Str())
	m := d.wrapped(summary, head, tail, text)
	m.Summary = true
	return m
}

// piEntryMessage turns a non-compaction entry into a message (no blocks: none). emit is false
// for messages pi keeps out of the model's context.
func (d *Dialect) entryMessage(typ string, f piFields, text conv.TextMode) (m conv.Message, emit bool) {
	switch typ {
	case "message":
		return d.message(f.message, text)
	case "custom_message":
		m = conv.Message{Role: conv.RoleUser, Blocks: piContent(f.content, text)}
		return m, true
	case "branch_summary":
		if f.summary.IsString() && f.summary != `""` {
			m = d.wrapped(f.summary, d.BranchHead, d.BranchTail, text)
		}
		return m, true
	}
	return m, false
}

// wrapped is a summary between the texts the agent sends around it, rendered as it renders it.
func (d *Dialect) wrapped(s jsonl.Value, prefix, suffix string, text conv.TextMode) conv.Message {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	if d.Render != nil {
		t.Lit(d.Render(prefix + s.Str() + suffix))
	} else {
		t.Lit(prefix)
		t.Val(s)
		t.Lit(suffix)
	}
	return conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{t.Block()}}
}

// piMsgFields are the fields of a message (AgentMessage) the reader uses.
type piMsgFields struct {
	role, content, usage, stopReason, callID, toolName, isError, summary, method jsonl.Value
	command, output, exitCode, cancelled, truncated, fullOutputPath, exclude     jsonl.Value
}

func (d *Dialect) message(msg jsonl.Value, text conv.TextMode) (m conv.Message, emit bool) {
	var f piMsgFields
	msg.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "role":
			f.role = v
		case "content":
			f.content = v
		case "usage":
			f.usage = v
		case "stopReason":
			f.stopReason = v
		case "toolCallId":
			f.callID = v
		case "toolName":
			f.toolName = v
		case "isError":
			f.isError = v
		case "summary":
			f.summary = v
		case "command":
			f.command = v
		case "output":
			f.output = v
		case "exitCode":
			f.exitCode = v
		case "cancelled":
			f.cancelled = v
		case "truncated":
			f.truncated = v
		case "fullOutputPath":
			f.fullOutputPath = v
		case "excludeFromContext":
			f.exclude = v
		case "method":
			f.method = v
		}
		return true
	})
	emit = true
	switch f.role.Str() {
	case "user", "custom", "hookMessage":
		m = conv.Message{Role: conv.RoleUser, Blocks: piContent(f.content, text)}
	case "assistant":
		m = conv.Message{Role: conv.RoleAssistant}
		f.content.Each(func(_ string, b jsonl.Value) bool {
			m.Blocks = append(m.Blocks, piAssistantBlock(b, text))
			return true
		})
		if f.usage.IsObject() {
			us := conv.Usage{Input: int(f.usage.Get("input").Int()), Output: int(f.usage.Get("output").Int()),
				CacheRead: int(f.usage.Get("cacheRead").Int()), CacheWrite: int(f.usage.Get("cacheWrite").Int())}
			if us.Total() > 0 {
				m.Usage = &us
			}
		}
		switch f.stopReason.Str() {
		case "error", "aborted":
			emit = false
		}
	case "toolResult":
		b := conv.ContentResultV(f.content, text)
		b.ID = f.callID.Str()
		b.Name = f.toolName.Str()
		b.IsError = f.isError.Bool()
		m = conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
	case "bashExecution":
		m = conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{piBashText(&f, text)}}
		emit = !f.exclude.Bool()
	case "branchSummary":
		m = d.wrapped(f.summary, d.BranchHead, d.BranchTail, text)
	case "compactionSummary":
		m = d.summaryMessage(f.summary, f.method, text)
	}
	return m, emit
}

func piAssistantBlock(b jsonl.Value, text conv.TextMode) conv.Block {
	var typ, txt, thinking, id, name, args jsonl.Value
	b.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "type":
			typ = v
		case "text":
			txt = v
		case "thinking":
			thinking = v
		case "id":
			id = v
		case "name":
			name = v
		case "arguments":
			args = v
		}
		return true
	})
	switch typ.Str() {
	case "text":
		return conv.TextBlockV(conv.BlockText, txt, text)
	case "thinking": // thinkingSignature is not counted
		return conv.TextBlockV(conv.BlockThinking, thinking, text)
	case "toolCall":
		return conv.ToolCallBlockV(id.Str(), name.Str(), args, text)
	case "image":
		return piImageBlock(b, text)
	}
	return conv.OpaqueBlockV(b, text)
}

// piBashText is the user text pi sends for a bash execution (messages.ts bashExecutionToText).
func piBashText(f *piMsgFields, text conv.TextMode) conv.Block {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit("Ran `")
	t.Val(f.command)
	t.Lit("`\n")
	if f.output.IsString() && f.output != `""` {
		t.Lit("```\n")
		t.Val(f.output)
		t.Lit("\n```")
	} else {
		t.Lit("(no output)")
	}
	if f.cancelled.Bool() {
		t.Lit("\n\n(command cancelled)")
	} else if conv.IsNumber(f.exitCode) && f.exitCode.Int() != 0 {
		t.Lit("\n\nCommand exited with code ")
		t.Lit(string(f.exitCode))
	}
	if f.truncated.Bool() && f.fullOutputPath.IsString() && f.fullOutputPath != `""` {
		t.Lit("\n\n[Output truncated. Full output: ")
		t.Val(f.fullOutputPath)
		t.Lit("]")
	}
	return t.Block()
}

// piContent reads user-side content: a string or text/image blocks.
func piContent(c jsonl.Value, text conv.TextMode) []conv.Block {
	if c.IsString() {
		return []conv.Block{conv.TextBlockV(conv.BlockText, c, text)}
	}
	var out []conv.Block
	c.Each(func(_ string, b jsonl.Value) bool {
		var typ, txt jsonl.Value
		b.Each(func(k string, v jsonl.Value) bool {
			switch k {
			case "type":
				typ = v
			case "text":
				txt = v
			}
			return true
		})
		switch typ.Str() {
		case "text":
			out = append(out, conv.TextBlockV(conv.BlockText, txt, text))
		case "image":
			out = append(out, piImageBlock(b, text))
		default:
			out = append(out, conv.OpaqueBlockV(b, text))
		}
		return true
	})
	return out
}

func piImageBlock(b jsonl.Value, text conv.TextMode) conv.Block {
	bl := conv.Block{Kind: conv.BlockImage}
	if text.On() {
		bl.Text = string(b)
	}
	return bl
}

// Record decodes one line of a pi session on its own (grep, search).
func Record(v jsonl.Value) conv.Record { return Pi.Record(v) }

// Record decodes one line of a session of the dialect on its own (grep, search): a compaction's
// summary as written (Summary: true), or the message an entry yields.
func (d *Dialect) Record(v jsonl.Value) conv.Record {
	f := piEntryFields(v)
	typ := f.typ.Str()
	switch {
	case typ == "session", d.Title != "" && typ == d.Title:
		return conv.Record{}
	case typ == "compaction":
		m := conv.Message{Role: conv.RoleUser, Summary: true}
		if f.summary.IsString() {
			m.Blocks = []conv.Block{{Kind: conv.BlockText, Text: f.summary.Str()}}
		}
		return conv.Record{Compaction: true, Meta: conv.MetaOf(v.Get("ctxc")), Messages: []conv.Message{m}}
	}
	m, _ := d.entryMessage(typ, f, conv.SearchText)
	if len(m.Blocks) == 0 {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}}
}

// Wrappers are the texts pi puts around the summaries it sends (grep's byte-level search must
// decode a line when a literal meets one).
var Wrappers = []conv.Wrapper{conv.Head(CompactionPrefix), conv.Tail(CompactionSuffix), conv.Head(BranchPrefix), conv.Tail(BranchSuffix)}

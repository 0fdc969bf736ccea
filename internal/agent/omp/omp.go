// Package omp is ctxc's code for Oh My Pi's sessions (omp, a fork of pi): their reader and
// the decoder of one line. omp keeps pi's session entries (a v3 id/parentId tree) but sends its
// summaries to the model in wrappers of its own, so its sessions are a format of their own.
package omp

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// HeaderType is the type of the first line of an omp session, its title slot
// ({"type":"title","v":1,"title":...,"pad":"   "}, rewritten in place as the title changes);
// the session header {"type":"session","version":3,...} comes after it.
const HeaderType = "title"

// reader reads omp sessions: ~/.omp/agent/sessions/<cwd>/<UTC time>_<id>.jsonl
// (docs/formats.md).
//
// Entries are the valid JSON lines; they form a tree through id/parentId, as pi's v2/v3 entries
// do (a v1 file, linear, is read as pi reads one).
//
// Conversation:
//   - message entries: user (string or text/image blocks); assistant (text, thinking, toolCall,
//     image); toolResult → a tool message with one result; bashExecution → a user message with
//     pi's text for the model; custom and hookMessage → a user message; branchSummary and
//     compactionSummary → a user message in omp's wrapper;
//   - custom_message entries → a user message;
//   - branch_summary entries → a user message in omp's branch wrapper ("Branch-return summary:");
//   - compaction entries → the summary as a user message (Summary:true) in omp's wrapper, which
//     depends on the entry's "method": "handoff" (omp's automatic compaction writes a handoff
//     document) → "Context replaced. The <handoff> below is…"; any other → "Prior model
//     work/tool state available. …".
//
// Metadata: the title slot, the header, model_change, thinking_level_change, custom entries
// (tool_execution_start, session_exit...), label and unknown entries.
//
// Reload rule (omp 18.2.3, its buildSessionContext, as pi's): the leaf is the last entry of the
// file; the path is the leaf and its parentId ancestors. The last compaction on the path starts
// the context: its summary, then the path entries from firstKeptEntryId up to the compaction,
// then the path entries after it. Assistant messages that ended in error or were aborted, and
// bash executions marked excludeFromContext, are left out of the context.
//
// omp adds a <system-reminder> of the day and the working folder to the first user message of
// every request: it is not in the file, and not in the context ctxc loads.
type reader struct {
	version int     // header version; 1 when absent
	header  int32   // entry index of the header, -1 before it
	entries []entry // every valid JSON line, in file order
	ids     map[uint64]int32
	comps   map[int32]comp // compaction entries by entry index
}

// entry is what the reader keeps per entry (32 bytes).
type entry struct {
	off    int64
	parent uint64 // key of parentId (see hasParent)
	size   int32
	line   int32
	tokens int32 // tokens of the message it yields in a context
	flags  uint8
}

const (
	emits     uint8 = 1 << iota // yields a message in a context
	compact                     // a compaction entry
	hasParent                   // parent holds the key of a parentId
)

type comp struct {
	kept      uint64 // key of firstKeptEntryId (v2/v3)
	keptIndex int64  // firstKeptEntryIndex (v1)
	hasKept   bool
	tokens    int32 // tokens of the summary message
}

// Selectors of omp refs.
const (
	selEntry   uint8 = iota // the message the entry yields
	selSummary              // the compaction entry's summary message
)

// omp's wrappers for summaries sent to the model (omp 18.2.3's prompt templates, rendered).
const (
	SummaryHead = "Prior model work/tool state available.\nMUST build on prior work; NEVER duplicate prior work.\n\n<summary>\n"
	SummaryTail = "\n</summary>"
	HandoffHead = "Context replaced. The <handoff> below is a handoff document a prior instance of you wrote from the full conversation. It is your own working memory, not user input.\n" +
		"- First person inside it refers to you (the prior instance).\n" +
		"- \"Next Steps\" is your own resumed plan; re-check it against the latest user message before acting.\n" +
		"- The handoff already exists and is complete: NEVER write another handoff document unless the user explicitly asks.\n" +
		"MUST build on prior work; NEVER duplicate prior work.\n\n<handoff>\n"
	HandoffTail = "\n</handoff>"
	BranchHead  = "Branch-return summary:\n\n<summary>\n"
	BranchTail  = "\n</summary>"
)

// handoffMethod is the "method" of a compaction whose summary is a handoff document.
const handoffMethod = "handoff"

// NewReader returns a reader of one omp session.
func NewReader() conv.Reader {
	return &reader{version: 1, header: -1, ids: map[uint64]int32{}, comps: map[int32]comp{}}
}

// fields are the top-level fields of an entry the reader uses, found in one pass.
type fields struct {
	typ, id, parentID, version, message, content, summary, keptID, keptIndex, method jsonl.Value
}

func entryFields(v jsonl.Value) fields {
	var f fields
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
	e := entry{off: l.Offset, size: int32(l.Size), line: int32(l.Num)}
	f := entryFields(jsonl.Value(doc.Raw))
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
		e.flags |= hasParent
	}
	if typ == "compaction" {
		st.Compactions++
		st.AddRecord(l)
		sm := summaryMessage(f.summary, f.method, conv.NoText)
		sm.Line = l.Num
		st.CountMessage(&sm)
		c := comp{tokens: int32(sm.Tokens())}
		if f.keptID.IsString() {
			c.kept, c.hasKept = conv.EntryKey(f.keptID.Str()), true
		} else if conv.IsNumber(f.keptIndex) {
			c.keptIndex, c.hasKept = f.keptIndex.Int(), true
		}
		r.comps[idx] = c
		e.flags |= compact
		r.entries = append(r.entries, e)
		return
	}
	m, emit := entryMessage(typ, f, conv.NoText)
	if len(m.Blocks) > 0 {
		m.Line = l.Num
		st.CountMessage(&m)
		if emit {
			e.flags |= emits
			e.tokens = int32(m.Tokens())
		}
		if m.Usage != nil {
			st.CountUsage(strings.Clone(f.id.Str()), *m.Usage, true)
		}
	}
	r.entries = append(r.entries, e)
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatOmp
	path := r.path()
	comp := -1
	for i, idx := range path {
		if r.entries[idx].flags&compact != 0 {
			comp = i
		}
	}
	var refs []conv.Ref
	emit := func(idx int32) {
		e := r.entries[idx]
		if e.flags&emits != 0 {
			refs = append(refs, conv.Ref{Off: e.off, Size: e.size, Line: e.line, Tokens: e.tokens, Msgs: 1, Sel: selEntry})
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
	refs = append(refs, conv.Ref{Off: ce.off, Size: ce.size, Line: ce.line, Tokens: c.tokens, Msgs: 1, Sel: selSummary})
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
		if e.flags&hasParent == 0 {
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
	f := entryFields(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)) // as add sees it: from the first { on
	if x.Sel == selSummary {
		m := summaryMessage(f.summary, f.method, conv.WithText)
		m.Line = x.LineNum()
		return []conv.Message{m}, nil
	}
	m, _ := entryMessage(f.typ.Str(), f, conv.WithText)
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation entry")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// summaryMessage is a compaction summary as omp sends it to the model: in its handoff wrapper
// when the compaction wrote a handoff document (method), else in its summary wrapper.
func summaryMessage(summary, method jsonl.Value, text conv.TextMode) conv.Message {
	head, tail := SummaryHead, SummaryTail
	if method.Str() == handoffMethod {
		head, tail = HandoffHead, HandoffTail
	}
	m := wrapped(summary, head, tail, text)
	m.Summary = true
	return m
}

// entryMessage turns a non-compaction entry into a message (no blocks: none). emit is false
// for messages pi keeps out of the model's context.
func entryMessage(typ string, f fields, text conv.TextMode) (m conv.Message, emit bool) {
	switch typ {
	case "message":
		return message(f.message, text)
	case "custom_message":
		m = conv.Message{Role: conv.RoleUser, Blocks: content(f.content, text)}
		return m, true
	case "branch_summary":
		if f.summary.IsString() && f.summary != `""` {
			m = wrapped(f.summary, BranchHead, BranchTail, text)
		}
		return m, true
	}
	return m, false
}

// wrapped is a summary in one of omp's wrappers, as omp renders the template that holds it
// (Render: its lines' trailing white space cut, its blank lines gathered).
func wrapped(s jsonl.Value, head, tail string, text conv.TextMode) conv.Message {
	t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
	t.Lit(Render(head + s.Str() + tail))
	return conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{t.Block()}}
}

// msgFields are the fields of a message (AgentMessage) the reader uses.
type msgFields struct {
	role, content, usage, stopReason, callID, toolName, isError, summary     jsonl.Value
	command, output, exitCode, cancelled, truncated, fullOutputPath, exclude jsonl.Value
	method                                                                   jsonl.Value
}

func message(msg jsonl.Value, text conv.TextMode) (m conv.Message, emit bool) {
	var f msgFields
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
		m = conv.Message{Role: conv.RoleUser, Blocks: content(f.content, text)}
	case "assistant":
		m = conv.Message{Role: conv.RoleAssistant}
		f.content.Each(func(_ string, b jsonl.Value) bool {
			m.Blocks = append(m.Blocks, assistantBlock(b, text))
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
		m = conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{bashText(&f, text)}}
		emit = !f.exclude.Bool()
	case "branchSummary":
		m = wrapped(f.summary, BranchHead, BranchTail, text)
	case "compactionSummary":
		m = summaryMessage(f.summary, f.method, text)
	}
	return m, emit
}

func assistantBlock(b jsonl.Value, text conv.TextMode) conv.Block {
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
		return imageBlock(b, text)
	}
	return conv.OpaqueBlockV(b, text)
}

// bashText is the user text pi sends for a bash execution (its messages.ts bashExecutionToText),
// which omp keeps.
func bashText(f *msgFields, text conv.TextMode) conv.Block {
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

// content reads user-side content: a string or text/image blocks.
func content(c jsonl.Value, text conv.TextMode) []conv.Block {
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
			out = append(out, imageBlock(b, text))
		default:
			out = append(out, conv.OpaqueBlockV(b, text))
		}
		return true
	})
	return out
}

func imageBlock(b jsonl.Value, text conv.TextMode) conv.Block {
	bl := conv.Block{Kind: conv.BlockImage}
	if text.On() {
		bl.Text = string(b)
	}
	return bl
}

// Record decodes one line of an omp session on its own (grep, the index): a compaction's
// summary as written (Summary: true), or the message an entry yields.
func Record(v jsonl.Value) conv.Record {
	f := entryFields(v)
	typ := f.typ.Str()
	switch typ {
	case "session", HeaderType:
		return conv.Record{}
	case "compaction":
		m := conv.Message{Role: conv.RoleUser, Summary: true}
		if f.summary.IsString() {
			m.Blocks = []conv.Block{{Kind: conv.BlockText, Text: f.summary.Str()}}
		}
		return conv.Record{Compaction: true, Meta: conv.MetaOf(v.Get("ctxc")), Messages: []conv.Message{m}}
	}
	m, _ := entryMessage(typ, f, conv.SearchText)
	if len(m.Blocks) == 0 {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}}
}

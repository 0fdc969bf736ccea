// Package claude is ctxc's code for Claude Code's sessions: their reader, the decoder of one
// line and the writer of a compaction (a new session from messages stays with the handoff
// rendering, in internal/transcript).
package claude

import (
	"hash/maphash"
	"strings"
	"unsafe"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Reader reads Claude Code session files (~/.claude/projects/<dir>/<session>.jsonl).
//
// Conversation: "user" and "assistant" records with a "message" (an Anthropic Messages API
// object). One API response is written as one line per content block sharing message.id: the
// lines are merged back into one message when materialized, and their usage is counted once
// (with the last line's output_tokens, which is the final one). Records with isSidechain:true
// are subagent replays: counted apart, never in the history or the context.
//
// Metadata, passed through and not counted: "summary" (a session title, NOT a compaction),
// file-history-snapshot, queue-operation, permission-mode, last-prompt, progress, attachment,
// system records, and any type not known today. toolUseResult (a structured duplicate of the
// tool result) is never counted.
//
// Compaction: a system record with subtype compact_boundary (parentUuid null) followed by a
// user record with isCompactSummary:true that holds the summary.
//
// Reload rule (as --resume does): start at the newest main-chain user/assistant record and walk
// parentUuid back; the walk ends at a record whose parent is null or unknown, which after a
// compaction is the boundary. The context is the conversation records on that path, oldest
// first: the summary message, then everything after it.
type Reader struct {
	seed      maphash.Seed
	index     map[uint64]int32 // uuid hash → record index
	withUUID  int              // records put in index: more than len(index) when a uuid repeats
	recs      records
	leaf      int32
	usage     pendingUsage
	prevID    string                 // message.id of the previous message record when it was an assistant one
	kept      map[int32]conv.Message // load: each message record's message with its text, by line
	text      conv.TextMode          // load: how kept messages' text is decoded
	observe   func(m *conv.Message, l *jsonl.Line)
	prevChars int // chars counted so far for that response

	// The sidechain records, read as a conversation of their own by side into sideSt. If the
	// file ends with no main-chain message, they are its conversation (a subagent file);
	// otherwise they stay counted apart (conv.Stats.Sidechain) and side is dropped.
	side   *Reader
	sideSt *conv.Stats
	isSide bool // this reader is a side: sidechain records are its conversation

	preserved *preservedList
	// recordOpen: the lines read since the newest compact_boundary are still part of its
	// compaction (no assistant record yet): see CompactionRecord.
	recordOpen bool
}

// trackRecord extends the newest compaction record over line l, until the first assistant
// record after it.
func (c *Reader) trackRecord(l *conv.Line, typ string, st *conv.Stats) {
	if !c.recordOpen {
		return
	}
	if typ == "assistant" {
		c.recordOpen = false
		return
	}
	st.ExtendRecord(l)
}

// preservedList is a compact_boundary's compactMetadata.preservedMessages: records before the
// boundary that the compaction keeps, relinked one after the other under the anchor (the
// summary), as Claude Code does on resume; the other records before the boundary are dropped.
type preservedList struct {
	boundary int32 // index of the boundary record
	anchor   uint64
	uuids    []uint64
}

func (c *Reader) parsePreserved(pm jsonl.Value) *preservedList {
	p := &preservedList{boundary: c.recs.len(), anchor: c.hash(pm.Get("anchorUuid").Str())}
	pm.Get("uuids").Each(func(_ string, u jsonl.Value) bool {
		p.uuids = append(p.uuids, c.hash(u.Str()))
		return true
	})
	if len(p.uuids) == 0 {
		return nil
	}
	return p
}

type record struct {
	self     uint64 // hash of uuid
	parent   uint64 // hash of parentUuid; 0 when null/absent
	off      int64
	size     int32
	line     int32
	tokens   int32
	chars    int32
	images   int32
	msgID    uint64 // hash of message.id of assistant records, to count split lines as one message
	message  bool   // user/assistant record with a message: part of the context
	results  bool   // a message of tool results only (the response they answer may go on)
	boundary bool
}

// lookup finds the record whose uuid hashes to h, for record i's parent. A record's parent is
// most often the record just before it, and when no uuid repeats in the file that is the
// index's answer too: it is checked first, which spares a map lookup per record of the chain
// (finish runs on one core). With repeated uuids the index decides (it holds the last).
func (c *Reader) lookup(h uint64, i int32) (int32, bool) {
	if i > 0 && c.withUUID == len(c.index) && c.recs.at(i-1).self == h {
		return i - 1, true
	}
	p, ok := c.index[h]
	return p, ok
}

// records holds the records in chunks of recChunk: appending never copies what is stored
// (a 1 GB session has 125,000 records, and a slice grown by append allocates about five times
// its final size on the way, all of it for the collector).
type records struct {
	chunks [][]record
	n      int32
}

const recChunk = 4096

func (r *records) len() int32 { return r.n }

func (r *records) at(i int32) *record { return &r.chunks[i/recChunk][i%recChunk] }

func (r *records) add(rec record) {
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1]) == recChunk {
		var c []record
		if len(r.chunks) > 0 {
			c = make([]record, 0, recChunk) // the first grows as needed: most files are small
		}
		r.chunks = append(r.chunks, c)
	}
	last := &r.chunks[len(r.chunks)-1]
	*last = append(*last, rec)
	r.n++
}

type pendingUsage struct {
	id string
	u  conv.Usage
	ok bool
}

func newReader() *Reader {
	return &Reader{seed: maphash.MakeSeed(), index: map[uint64]int32{}, leaf: -1}
}

// NewReader is a reader of one Claude Code session (a *Reader).
func NewReader() conv.Reader { return newReader() }

// Keep makes the reader a load's: it keeps each message record's message, with its text
// decoded as text says, for Kept.
func (c *Reader) Keep(text conv.TextMode) {
	c.kept = map[int32]conv.Message{}
	c.text = text
}

// Observe has fn called with each message as its line is read, in file order.
func (c *Reader) Observe(fn func(m *conv.Message, l *jsonl.Line)) { c.observe = fn }

// Keeps tells whether the reader kept the messages it read (Keep).
func (c *Reader) Keeps() bool { return c.kept != nil }

// Kept is the message the reader kept of line n.
func (c *Reader) Kept(n int32) conv.Message { return c.kept[n] }

func (c *Reader) hash(s string) uint64 {
	h := maphash.String(c.seed, s)
	if h == 0 {
		h = 1 // 0 means "no parent"
	}
	return h
}

// Line is what the reader takes from one line, found by one walk over it: lines can be
// megabytes long. The range workers (scanFileRanges) walk the lines ahead of the reader, in
// parallel; add walks those that were not.
type Line struct {
	typ, uuid, parent, subtype string
	msg                        jsonl.Value  // the line's "message" object
	parsed                     conv.Message // msg, parsed with the text mode of the walk
	sidechain, compactSummary  bool
	preserved                  jsonl.Value // a compact_boundary's compactMetadata.preservedMessages
	usage                      conv.Usage  // of an assistant message
	hasUsage                   bool
}

// HasMessage tells whether the line holds a "message".
func (f *Line) HasMessage() bool { return f.msg.Exists() }

// ScanLine walks a line. With noText the message is parsed in place (it keeps substrings
// of the line); otherwise as preparseMessage does (owned or detached by det).
func ScanLine(line jsonl.Value, t conv.TextMode, det *conv.Line) Line {
	var f Line
	line.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "message":
			if !rest.IsObject() {
				return -1
			}
			if t == conv.NoText {
				m, n := conv.AnthropicMessageAt(rest, conv.NoText)
				f.parsed, f.msg = m, rest[:n]
				return n
			}
			n := jsonl.SkipValue(string(rest), 0)
			f.msg = rest[:n]
			f.parsed = preparseMessage(f.msg, t, det)
			return n
		case "compactMetadata":
			v, n := rest.Prefix()
			if pm := v.Get("preservedMessages"); pm.IsObject() {
				f.preserved = pm
			}
			return n
		case "type", "uuid", "parentUuid", "subtype", "isSidechain", "isCompactSummary":
		default:
			return -1
		}
		v, n := rest.Prefix()
		switch k {
		case "type":
			f.typ = v.Str()
		case "uuid":
			f.uuid = v.Str()
		case "parentUuid":
			f.parent = v.Str()
		case "subtype":
			f.subtype = v.Str()
		case "isSidechain":
			f.sidechain = v.Bool()
		case "isCompactSummary":
			f.compactSummary = v.Bool()
		}
		return n
	})
	if f.typ == "assistant" && f.msg.IsObject() {
		f.usage, f.hasUsage = claudeUsage(f.msg)
	}
	return f
}

// add reads one record: a sidechain record goes to the side reader; a compact_boundary opens a
// compaction; a message is counted; and a record with a uuid is kept, with what the context
// walk needs, for finish.
func (c *Reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	f := c.walk(l, doc)
	isMessage := (f.typ == "user" || f.typ == "assistant") && f.msg.IsObject()
	if f.sidechain && !c.isSide {
		if isMessage {
			st.Sidechain++
		}
		c.addSide(l, doc, st)
		return
	}
	c.trackRecord(l, f.typ, st)
	boundary := f.typ == "system" && f.subtype == "compact_boundary"
	if boundary {
		c.openCompaction(l, f.preserved, st)
	}
	rec := record{off: l.Offset, size: int32(l.Size), line: int32(l.Num), message: isMessage, boundary: boundary}
	if isMessage {
		c.addMessage(l, &f, &rec, st)
	}
	if f.uuid != "" {
		c.keepRecord(rec, f.uuid, f.parent)
	}
}

// walk is line l's walk: the range worker's when it walked the line ahead (with the text mode
// this reader wants), else one made here.
func (c *Reader) walk(l *conv.Line, doc gjson.Result) Line {
	if w, ok := l.Walk().(*Line); ok {
		return *w
	}
	t := conv.NoText
	if c.kept != nil {
		t = c.text
		if t == conv.WindowedText {
			t = conv.WithText // windows only where the line is detached (they refer to the file)
		}
	}
	return ScanLine(jsonl.Value(doc.Raw), t, nil)
}

// openCompaction counts a compact_boundary record: its compaction record starts at line l, and
// the records it preserves (compactMetadata.preservedMessages) are the only ones resume relinks:
// a boundary without them leaves none of an earlier boundary's.
func (c *Reader) openCompaction(l *conv.Line, preserved jsonl.Value, st *conv.Stats) {
	st.Compactions++
	st.AddRecord(l)
	c.recordOpen = true
	c.preserved = nil
	if preserved.Exists() {
		c.preserved = c.parsePreserved(preserved)
	}
}

// addMessage counts a user or assistant record's message into the history, hands it to the
// observer and to a load, and fills in what its record keeps of it: sizes, whether it holds only
// tool results, and the hash of its response's id.
func (c *Reader) addMessage(l *conv.Line, f *Line, rec *record, st *conv.Stats) {
	m := c.normalize(f.parsed, f.typ)
	m.Line = l.Num
	m.Summary = f.compactSummary
	if c.observe != nil {
		seen := m // a copy for the callback: m itself then stays off the heap
		c.observe(&seen, &l.Line)
	}
	if c.kept != nil {
		c.kept[int32(l.Num)] = m
	}
	rec.results = onlyResults(&m)
	c.countResponse(&m, rec.results, st)
	rec.tokens, rec.chars, rec.images = int32(m.Tokens()), int32(m.Chars()), int32(m.Images())
	if f.typ == "assistant" {
		c.trackUsage(f.usage, f.hasUsage, m.MsgID, st)
		if m.MsgID != "" {
			rec.msgID = c.hash(m.MsgID)
		}
	}
}

// countResponse counts m in the history statistics. A response's blocks are one message even
// when its tool results come between them (parallel calls: see context): a block of the
// response before adds only what it grows that message by.
func (c *Reader) countResponse(m *conv.Message, results bool, st *conv.Stats) {
	if m.Role == conv.RoleAssistant && m.MsgID != "" && m.MsgID == c.prevID {
		st.CountContinuation(m, c.prevChars)
		c.prevChars += m.Chars()
		return
	}
	st.CountMessage(m)
	if m.Role == conv.RoleAssistant {
		c.prevID, c.prevChars = strings.Clone(m.MsgID), m.Chars()
	} else if !results {
		c.prevID, c.prevChars = "", 0
	}
}

// keepRecord stores a record with its uuid and parentUuid hashed, indexes it by uuid for the
// parent walks, and makes it the leaf when it is a message.
func (c *Reader) keepRecord(rec record, uuid, parent string) {
	if parent != "" {
		rec.parent = c.hash(parent)
	}
	idx := c.recs.len()
	rec.self = c.hash(uuid)
	c.recs.add(rec)
	c.index[rec.self] = idx
	c.withUUID++
	if rec.message {
		c.leaf = idx
	}
}

// addSide reads a sidechain record into the side reader, in case the file turns out to be a
// subagent transcript (the side reader takes the line's walk from the range workers, or walks
// it again: sidechain records are rare in main sessions, and subagent files are small).
func (c *Reader) addSide(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	if c.side == nil {
		c.side = newReader()
		c.side.isSide = true
		c.side.text = c.text
		if c.kept != nil {
			c.side.kept = map[int32]conv.Message{}
		}
		if c.observe != nil {
			// Compaction's head guess: only while the file has shown no main-chain message.
			c.side.observe = func(m *conv.Message, l *jsonl.Line) {
				if c.leaf < 0 {
					c.observe(m, l)
				}
			}
		}
		c.sideSt = &conv.Stats{Path: st.Path, TopN: st.TopN}
		if st.OnCounted != nil {
			c.sideSt.OnCounted = func(m conv.Counted) {
				m.Sidechain = true
				st.OnCounted(m)
			}
		}
	}
	c.side.Add(l, doc, c.sideSt)
}

// adoptSide makes the sidechain the file's conversation: its history counts, usage, largest
// messages and kept messages replace the (empty) main chain's.
func (c *Reader) adoptSide(st *conv.Stats) []conv.Ref {
	refs := c.side.Finish(c.sideSt)
	s := c.sideSt
	st.Messages, st.ToolCalls, st.ToolResults, st.Images = s.Messages, s.ToolCalls, s.ToolResults, s.Images
	st.Chars, st.Tokens, st.Usage = s.Chars, s.Tokens, s.Usage
	st.TakeTop(s)
	st.Compactions += s.Compactions
	st.Sidechain = 0
	st.Subagent = true
	c.kept = c.side.kept
	return refs
}

// message parses a record's "message". Claude Code's assistant messages carry API response
// fields (id, model, usage...) that an API request may not contain, so Raw is not kept.
func (c *Reader) message(msg jsonl.Value, typ string, text conv.TextMode) conv.Message {
	return c.normalize(conv.AnthropicMessage(msg, text), typ)
}

func (c *Reader) normalize(m conv.Message, typ string) conv.Message {
	m.Dialect = conv.DialectNone
	if m.Role == "" {
		m.Role = conv.RoleConst(conv.Role(typ)) // not the line's bytes: the message may be kept
	}
	if m.Role != conv.RoleAssistant {
		m.MsgID = ""
	}
	return m
}

// claudeUsage reads an assistant message's recorded usage.
func claudeUsage(msg jsonl.Value) (conv.Usage, bool) {
	u := msg.Get("usage")
	if !u.IsObject() {
		return conv.Usage{}, false
	}
	var cur conv.Usage
	u.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "input_tokens":
			cur.Input = int(v.Int())
		case "output_tokens":
			cur.Output = int(v.Int())
		case "cache_read_input_tokens":
			cur.CacheRead = int(v.Int())
		case "cache_creation_input_tokens":
			cur.CacheWrite = int(v.Int())
		}
		return true
	})
	return cur, true
}

// trackUsage counts one response's usage once: split lines repeat it, and in 2.0.x only the
// last line carries the final output_tokens.
func (c *Reader) trackUsage(cur conv.Usage, ok bool, id string, st *conv.Stats) {
	if !ok {
		return
	}
	if c.usage.ok && c.usage.id == id && id != "" {
		if cur.Output < c.usage.u.Output {
			cur.Output = c.usage.u.Output
		}
		c.usage.u = cur
		return
	}
	c.flushUsage(st)
	c.usage = pendingUsage{id: strings.Clone(id), u: cur, ok: true} // id views the reused line buffer
}

func (c *Reader) flushUsage(st *conv.Stats) {
	if c.usage.ok {
		st.CountUsage("", c.usage.u, true)
		c.usage.ok = false
	}
}

func (c *Reader) Finish(st *conv.Stats) []conv.Ref {
	c.flushUsage(st)
	st.Format = conv.FormatClaude
	if c.leaf < 0 && c.side != nil && c.side.leaf >= 0 {
		return c.adoptSide(st)
	}
	c.side, c.sideSt = nil, nil
	if c.leaf < 0 {
		return nil
	}
	ctx := c.context()
	refs := make([]conv.Ref, 0, len(ctx))
	var respID uint64 // the response whose assistant message later blocks join
	respChars := 0
	for _, i := range ctx {
		r := *c.recs.at(i)
		if !r.message {
			continue
		}
		n, tok := int32(1), r.tokens
		switch {
		case r.msgID != 0 && r.msgID == respID:
			// Another block of the same response: merged into one message on load
			// (FinishContext), and estimated as one.
			n = 0
			tok = int32(estimate.FromChars(respChars+int(r.chars)) - estimate.FromChars(respChars) + int(r.images)*estimate.ImageTokens)
			respChars += int(r.chars)
		case r.msgID != 0:
			respID, respChars = r.msgID, int(r.chars)
		case !r.results:
			respID = 0
		}
		refs = append(refs, conv.Ref{Off: r.off, Size: r.size, Line: r.line, Tokens: tok, Msgs: n})
	}
	return refs
}

// FinishContext groups the context as Claude Code sends it: one assistant message per response
// (its blocks, parallel tool calls included, in file order), its tool results after it.
func (c *Reader) FinishContext(ms []conv.Message) []conv.Message {
	out := make([]conv.Message, 0, len(ms))
	resp := -1 // index in out of the current response's assistant message
	for _, m := range ms {
		switch {
		case m.Role == conv.RoleAssistant && m.MsgID != "" && resp >= 0 && out[resp].MsgID == m.MsgID:
			out[resp].Absorb(&m)
			continue
		case m.Role == conv.RoleAssistant && m.MsgID != "":
			resp = len(out)
		case m.Role == conv.RoleAssistant || !onlyResults(&m):
			resp = -1
		}
		out = append(out, m)
	}
	return out
}

// onlyResults: a message made of tool results (Claude Code's user record answering calls).
func onlyResults(m *conv.Message) bool {
	return len(m.Blocks) > 0 && m.ToolResults() == len(m.Blocks)
}

func (c *Reader) Materialize(b []byte, r conv.Ref) ([]conv.Message, error) {
	doc := gjson.Parse(conv.UnsafeString(b))
	typ := doc.Get("type").String()
	m := c.message(jsonl.Value(doc.Get("message").Raw), typ, conv.WithText)
	m.Line = r.LineNum()
	m.Summary = doc.Get("isCompactSummary").Bool()
	return []conv.Message{m}, nil
}

func preparseMessage(msg jsonl.Value, t conv.TextMode, det *conv.Line) conv.Message {
	if det != nil {
		m, _ := conv.AnthropicMessageAt(msg, t)
		conv.Detach(&m, det.Bytes, det.BytesOffset(), "")
		return m
	}
	if t == conv.WindowedText {
		t = conv.WithText // windows only where the line is detached (they refer to the file)
	}
	// Parsed in place, then owned: the line's buffer is reused (or unmapped) after the walk.
	m, _ := conv.AnthropicMessageAt(msg, t)
	conv.Own(&m, conv.InLine(unsafe.Slice(unsafe.StringData(string(msg)), len(msg)), 0))
	return m
}

// Record decodes one line of a Claude Code session on its own (grep, search).
func Record(v jsonl.Value) conv.Record {
	var typ, subtype string
	var msg, meta jsonl.Value
	var sidechain, summary bool
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "type":
			typ = val.Str()
		case "subtype":
			subtype = val.Str()
		case "message":
			msg = val
		case "ctxc":
			meta = val
		case "isSidechain":
			sidechain = val.Bool()
		case "isCompactSummary":
			summary = val.Bool()
		}
		return true
	})
	if typ == "system" && subtype == "compact_boundary" {
		return conv.Record{Compaction: true, Meta: conv.MetaOf(meta)}
	}
	if (typ != "user" && typ != "assistant") || !msg.IsObject() {
		return conv.Record{}
	}
	c := Reader{}
	m := c.message(msg, typ, conv.SearchText)
	m.Summary = summary
	return conv.Record{Messages: []conv.Message{m}, Sidechain: sidechain}
}

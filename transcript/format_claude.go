package transcript

import (
	"hash/maphash"
	"strings"

	"github.com/ctxc/ctxc/estimate"
	"github.com/tidwall/gjson"
)

// claudeReader reads Claude Code session files (~/.claude/projects/<dir>/<session>.jsonl).
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
type claudeReader struct {
	seed      maphash.Seed
	index     map[uint64]int32 // uuid hash → record index
	recs      []claudeRec
	leaf      int32
	usage     claudePendingUsage
	prevID    string            // message.id of the previous message record when it was an assistant one
	kept      map[int32]Message // load: each message record's message with its text, by line
	text      textMode          // load: how kept messages' text is decoded
	observe   func(m *Message, l *Line)
	prevChars int // chars counted so far for that response

	// The sidechain records, read as a conversation of their own by side into sideSt. If the
	// file ends with no main-chain message, they are its conversation (a subagent file);
	// otherwise they stay counted apart (Stats.Sidechain) and side is dropped.
	side   *claudeReader
	sideSt *Stats
	isSide bool // this reader is a side: sidechain records are its conversation
}

type claudeRec struct {
	parent   uint64 // hash of parentUuid; 0 when null/absent
	off      int64
	size     int32
	line     int32
	tokens   int32
	chars    int32
	images   int32
	msgID    uint64 // hash of message.id of assistant records, to count split lines as one message
	message  bool   // user/assistant record with a message: part of the context
	boundary bool
}

type claudePendingUsage struct {
	id string
	u  Usage
	ok bool
}

func newClaudeReader() *claudeReader {
	return &claudeReader{seed: maphash.MakeSeed(), index: map[uint64]int32{}, leaf: -1}
}

func (c *claudeReader) hash(s string) uint64 {
	h := maphash.String(c.seed, s)
	if h == 0 {
		h = 1 // 0 means "no parent"
	}
	return h
}

func (c *claudeReader) add(l *Line, doc gjson.Result, st *Stats) {
	var typ, uuid, parent, subtype string
	var msg jv
	var parsed Message
	var sidechain, compactSummary bool
	// One walk over the line, parsing "message" in passing: lines can be megabytes long.
	jv(doc.Raw).walk(func(k string, rest jv) int {
		switch k {
		case "message":
			if !rest.isObject() {
				return -1
			}
			if l.pre != nil && l.pre.ok {
				parsed = l.pre.m
				n := l.pre.skip // measured by the validator
				if n <= 0 || n > len(rest) {
					n = skipValue(string(rest), 0)
				}
				msg = rest[:n]
				return n
			}
			m, n := anthropicMessageAt(rest, noText)
			parsed, msg = m, rest[:n]
			return n
		case "type", "uuid", "parentUuid", "subtype", "isSidechain", "isCompactSummary":
		default:
			return -1
		}
		v, n := rest.prefix()
		switch k {
		case "type":
			typ = v.str()
		case "uuid":
			uuid = v.str()
		case "parentUuid":
			parent = v.str()
		case "subtype":
			subtype = v.str()
		case "isSidechain":
			sidechain = v.boolean()
		case "isCompactSummary":
			compactSummary = v.boolean()
		}
		return n
	})
	isMessage := (typ == "user" || typ == "assistant") && msg.isObject()
	if sidechain && !c.isSide {
		if isMessage {
			st.Sidechain++
		}
		c.addSide(l, doc, st)
		return
	}
	if typ == "system" && subtype == "compact_boundary" {
		st.Compactions++
	}
	var tokens, chars, images int
	var msgID uint64
	if isMessage {
		if c.kept != nil && (l.pre == nil || !l.pre.ok) {
			parsed = preparseClaudeMessage(msg, c.text, nil).m // not preparsed (Scan, or the detection window)
		}
		m := c.normalize(parsed, typ)
		m.Line = l.Num
		m.Summary = compactSummary
		if c.observe != nil {
			c.observe(&m, l)
		}
		if c.kept != nil {
			c.kept[int32(l.Num)] = m
		}
		cont := m.Role == RoleAssistant && m.MsgID != "" && m.MsgID == c.prevID
		if cont {
			st.countContinuation(&m, c.prevChars)
			c.prevChars += m.Chars()
		} else {
			st.countMessage(&m)
			c.prevID, c.prevChars = "", 0
			if m.Role == RoleAssistant {
				c.prevID, c.prevChars = strings.Clone(m.MsgID), m.Chars()
			}
		}
		tokens = m.Tokens()
		chars, images = m.Chars(), m.Images()
		if typ == "assistant" {
			c.trackUsage(msg, m.MsgID, st)
			if m.MsgID != "" {
				msgID = c.hash(m.MsgID)
			}
		}
	}
	if uuid == "" {
		return
	}
	rec := claudeRec{off: l.Offset, size: int32(l.Size), line: int32(l.Num), tokens: int32(tokens),
		chars: int32(chars), images: int32(images), msgID: msgID, message: isMessage, boundary: typ == "system" && subtype == "compact_boundary"}
	if parent != "" {
		rec.parent = c.hash(parent)
	}
	idx := int32(len(c.recs))
	c.recs = append(c.recs, rec)
	c.index[c.hash(uuid)] = idx
	if isMessage {
		c.leaf = idx
	}
}

// addSide reads a sidechain record into the side reader, in case the file turns out to be a
// subagent transcript. The line is walked a second time there: sidechain records are rare in
// main sessions, and subagent files are small.
func (c *claudeReader) addSide(l *Line, doc gjson.Result, st *Stats) {
	if c.side == nil {
		c.side = newClaudeReader()
		c.side.isSide = true
		c.side.text = c.text
		if c.kept != nil {
			c.side.kept = map[int32]Message{}
		}
		if c.observe != nil {
			// Compaction's head guess: only while the file has shown no main-chain message.
			c.side.observe = func(m *Message, l *Line) {
				if c.leaf < 0 {
					c.observe(m, l)
				}
			}
		}
		c.sideSt = &Stats{Path: st.Path, topN: st.topN}
	}
	c.side.add(l, doc, c.sideSt)
}

// adoptSide makes the sidechain the file's conversation: its history counts, usage, largest
// messages and kept messages replace the (empty) main chain's.
func (c *claudeReader) adoptSide(st *Stats) []ref {
	refs := c.side.finish(c.sideSt)
	s := c.sideSt
	st.Messages, st.ToolCalls, st.ToolResults, st.Images = s.Messages, s.ToolCalls, s.ToolResults, s.Images
	st.Chars, st.Tokens, st.Usage, st.top = s.Chars, s.Tokens, s.Usage, s.top
	st.Compactions += s.Compactions
	st.Sidechain = 0
	st.Subagent = true
	c.kept = c.side.kept
	return refs
}

// message parses a record's "message". Claude Code's assistant messages carry API response
// fields (id, model, usage...) that an API request may not contain, so Raw is not kept.
func (c *claudeReader) message(msg jv, typ string, text textMode) Message {
	return c.normalize(anthropicMessage(msg, text), typ)
}

func (c *claudeReader) normalize(m Message, typ string) Message {
	m.Dialect = DialectNone
	if m.Role == "" {
		m.Role = Role(typ)
	}
	if m.Role != RoleAssistant {
		m.MsgID = ""
	}
	return m
}

// trackUsage counts one response's usage once: split lines repeat it, and in 2.0.x only the
// last line carries the final output_tokens.
func (c *claudeReader) trackUsage(msg jv, id string, st *Stats) {
	u := msg.get("usage")
	if !u.isObject() {
		return
	}
	var cur Usage
	u.each(func(k string, v jv) bool {
		switch k {
		case "input_tokens":
			cur.Input = int(v.int())
		case "output_tokens":
			cur.Output = int(v.int())
		case "cache_read_input_tokens":
			cur.CacheRead = int(v.int())
		case "cache_creation_input_tokens":
			cur.CacheWrite = int(v.int())
		}
		return true
	})
	if c.usage.ok && c.usage.id == id && id != "" {
		if cur.Output < c.usage.u.Output {
			cur.Output = c.usage.u.Output
		}
		c.usage.u = cur
		return
	}
	c.flushUsage(st)
	c.usage = claudePendingUsage{id: strings.Clone(id), u: cur, ok: true} // id views the reused line buffer
}

func (c *claudeReader) flushUsage(st *Stats) {
	if c.usage.ok {
		st.countUsage("", c.usage.u, true)
		c.usage.ok = false
	}
}

func (c *claudeReader) finish(st *Stats) []ref {
	c.flushUsage(st)
	st.Format = FormatClaude
	if c.leaf < 0 && c.side != nil && c.side.leaf >= 0 {
		return c.adoptSide(st)
	}
	c.side, c.sideSt = nil, nil
	if c.leaf < 0 {
		return nil
	}
	var path []int32
	seen := make(map[int32]struct{})
	for i := c.leaf; i >= 0; {
		if _, loop := seen[i]; loop {
			break // a parent cycle in a damaged file: stop rather than spin
		}
		seen[i] = struct{}{}
		path = append(path, i)
		r := c.recs[i]
		if r.boundary || r.parent == 0 {
			break
		}
		p, ok := c.index[r.parent]
		if !ok {
			break // parent in another file (resumed session) or lost
		}
		i = p
	}
	refs := make([]ref, 0, len(path))
	var prevID uint64
	prevChars := 0
	for k := len(path) - 1; k >= 0; k-- {
		r := c.recs[path[k]]
		if !r.message {
			continue
		}
		n, tok := int32(1), r.tokens
		if r.msgID != 0 && r.msgID == prevID {
			// Another block of the same response: merged into one message on load, and
			// estimated as one.
			n = 0
			tok = int32(estimate.FromChars(prevChars+int(r.chars)) - estimate.FromChars(prevChars) + int(r.images)*estimate.ImageTokens)
			prevChars += int(r.chars)
		} else {
			prevChars = int(r.chars)
		}
		prevID = r.msgID
		refs = append(refs, ref{off: r.off, size: r.size, line: r.line, tokens: tok, msgs: n})
	}
	return refs
}

func (c *claudeReader) materialize(b []byte, r ref) ([]Message, error) {
	doc := gjson.Parse(unsafeString(b))
	typ := doc.Get("type").String()
	m := c.message(jv(doc.Get("message").Raw), typ, withText)
	m.Line = r.lineNum()
	m.Summary = doc.Get("isCompactSummary").Bool()
	return []Message{m}, nil
}

// preparseClaude parses a Claude Code line's "message" with its text from an owned copy.
func preparseClaude(line []byte, t textMode, det *Line) *preparsed {
	var msg jv
	seen := 0
	jv(unsafeString(line)).walk(func(k string, rest jv) int {
		if k == "message" && rest.isObject() {
			v, n := rest.prefix()
			msg = v
			seen++
			return n
		}
		return -1
	})
	if !msg.exists() {
		return &preparsed{}
	}
	p := preparseClaudeMessage(msg, t, det)
	if seen == 1 {
		p.skip = len(msg) // with repeated keys the reader measures each itself
	}
	return &p
}

func preparseClaudeMessage(msg jv, t textMode, det *Line) preparsed {
	if det != nil {
		m, _ := anthropicMessageAt(msg, t)
		detach(&m, det.Bytes, det.bytesOffset(), "")
		return preparsed{m: m, ok: true}
	}
	if t == windowedText {
		t = withText // windows only where the line is detached (they refer to the file)
	}
	own := []byte(msg)
	m, _ := anthropicMessageAt(jv(unsafeString(own)), t)
	return preparsed{m: m, ok: true}
}

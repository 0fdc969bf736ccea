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

// claudeLine is what the reader takes from one line, found by one walk over it: lines can be
// megabytes long. The range workers (ScanRanges) walk the lines ahead of the reader, in
// parallel; add walks those that were not.
type claudeLine struct {
	typ, uuid, parent, subtype string
	msg                        jv      // the line's "message" object
	parsed                     Message // msg, parsed with the text mode of the walk
	sidechain, compactSummary  bool
	usage                      Usage // of an assistant message
	hasUsage                   bool
}

// scanClaudeLine walks a line. With noText the message is parsed in place (it keeps substrings
// of the line); otherwise as preparseClaudeMessage does (owned or detached by det).
func scanClaudeLine(line jv, t textMode, det *Line) claudeLine {
	var f claudeLine
	line.walk(func(k string, rest jv) int {
		switch k {
		case "message":
			if !rest.isObject() {
				return -1
			}
			if t == noText {
				m, n := anthropicMessageAt(rest, noText)
				f.parsed, f.msg = m, rest[:n]
				return n
			}
			n := skipValue(string(rest), 0)
			f.msg = rest[:n]
			f.parsed = preparseClaudeMessage(f.msg, t, det).m
			return n
		case "type", "uuid", "parentUuid", "subtype", "isSidechain", "isCompactSummary":
		default:
			return -1
		}
		v, n := rest.prefix()
		switch k {
		case "type":
			f.typ = v.str()
		case "uuid":
			f.uuid = v.str()
		case "parentUuid":
			f.parent = v.str()
		case "subtype":
			f.subtype = v.str()
		case "isSidechain":
			f.sidechain = v.boolean()
		case "isCompactSummary":
			f.compactSummary = v.boolean()
		}
		return n
	})
	if f.typ == "assistant" && f.msg.isObject() {
		f.usage, f.hasUsage = claudeUsage(f.msg)
	}
	return f
}

func (c *claudeReader) add(l *Line, doc gjson.Result, st *Stats) {
	var f claudeLine
	if l.pre != nil && l.pre.claude != nil {
		f = *l.pre.claude // walked by a range worker, with the text mode this reader wants
	} else {
		t := noText
		if c.kept != nil {
			t = c.text
			if t == windowedText {
				t = withText // windows only where the line is detached (they refer to the file)
			}
		}
		f = scanClaudeLine(jv(doc.Raw), t, nil)
	}
	typ, uuid, parent, subtype, msg, parsed := f.typ, f.uuid, f.parent, f.subtype, f.msg, f.parsed
	sidechain, compactSummary := f.sidechain, f.compactSummary
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
			c.trackUsage(f.usage, f.hasUsage, m.MsgID, st)
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
// subagent transcript (the side reader takes the line's walk from the range workers, or walks
// it again: sidechain records are rare in main sessions, and subagent files are small).
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
		m.Role = roleConst(Role(typ)) // not the line's bytes: the message may be kept
	}
	if m.Role != RoleAssistant {
		m.MsgID = ""
	}
	return m
}

// claudeUsage reads an assistant message's recorded usage.
func claudeUsage(msg jv) (Usage, bool) {
	u := msg.get("usage")
	if !u.isObject() {
		return Usage{}, false
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
	return cur, true
}

// trackUsage counts one response's usage once: split lines repeat it, and in 2.0.x only the
// last line carries the final output_tokens.
func (c *claudeReader) trackUsage(cur Usage, ok bool, id string, st *Stats) {
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

// preparseClaude walks a Claude Code line ahead of the reader (see claudeLine), parsing its
// "message" with the text mode t: in place for noText (the line's buffer outlives the reader's
// use of it), from an owned copy or detached (det) otherwise.
func preparseClaude(line []byte, t textMode, det *Line) *preparsed {
	f := scanClaudeLine(jv(unsafeString(line)), t, det)
	return &preparsed{m: f.parsed, ok: f.msg.exists(), claude: &f, inPlace: true} // uuids point into the line
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

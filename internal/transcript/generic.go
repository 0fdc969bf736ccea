package transcript

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/ctxc/ctxc/internal/agent/gemini"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// genericReader reads the plain message-list formats: OpenAI chat messages and Anthropic
// messages one per line, and ctxc/crabtalk files, which add {"compact":...} markers and an
// optional crabtalk meta first line. Dialect is decided per line, so a file may mix them.
//
// Lines: a message ({"role":...}, or crabtalk's {"message":{...}}) is conversation; a marker
// starts a new effective context (docs/design.md §6); the crabtalk meta line and trace events
// ({"event":...}) are metadata; anything else is kept as opaque and ignored.
type genericReader struct {
	format    Format
	refs      []ref
	keep      bool      // load: parse with text while scanning, instead of re-reading afterwards
	kept      []Message // with keep: the messages of refs, in order
	text      textMode  // with keep: how the kept messages' text is decoded
	observe   func(m *Message, l *jsonl.Line)
	copies    int // lines after the newest marker that are verbatim tail copies (not new history)
	anthropic bool
	meta      bool
}

const (
	selMessage uint8 = iota
	selMarker
)

func newGenericReader(f Format) *genericReader { return &genericReader{format: f} }

func (g *genericReader) Add(l *scanLine, doc gjson.Result, st *Stats) {
	if preOf(l) != nil && preOf(l).ok && preOf(l).generic {
		// Parsed ahead (with its text when loading) by a worker, which found it to be a message
		// (not a marker, not meta): no need to walk the line again here, on the one goroutine
		// that orders lines.
		g.addMessage(l, *preOf(l).m, preOf(l).d, st)
		return
	}
	line := jsonl.Value(doc.Raw)
	var role, message, compact jsonl.Value
	meta := 0
	line.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "role", "message", "compact":
			v, n := rest.Prefix()
			switch k {
			case "role":
				role = v
			case "message":
				message = v
			case "compact":
				compact = v
			}
			return n
		case "created_by", "created_at":
			meta++
		}
		return -1
	})
	if compact.Exists() {
		mk, ok := parseMarkerDoc(doc, conv.NoText)
		if !ok {
			return // not a usable marker: the previous one still counts
		}
		st.Markers++
		st.AddRecord(l)
		g.refs = g.refs[:0]
		g.kept = g.kept[:0]
		tokens := 0
		for i := range mk.head {
			tokens += mk.head[i].Tokens()
		}
		sum := SummaryMessage(mk.summary, l.Num)
		if g.observe != nil {
			g.observe(&sum, &l.Line)
		}
		tokens += sum.Tokens()
		g.refs = append(g.refs, ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(tokens), Msgs: int32(len(mk.head) + 1), Sel: selMarker})
		g.copies = mk.tailLines
		if g.keep {
			ms, _ := g.Materialize(append([]byte(nil), l.Bytes...), g.refs[0])
			g.kept = append(g.kept, ms...)
		}
		return
	}
	var msg jsonl.Value
	switch {
	case role.IsString():
		msg = line
	case message.IsObject() && message.Get("role").IsString():
		msg = message
	default:
		if meta == 2 {
			g.meta = true
		}
		return
	}
	var m Message
	var d Dialect
	switch {
	case g.keep:
		p := preparseMessage(msg, g.text, nil)
		m, d = *p.m, p.d
	default:
		d, _ = messageDialectV(msg)
		m = parseDialectV(msg, d, conv.NoText)
	}
	g.addMessage(l, m, d, st)
}

func (g *genericReader) addMessage(l *scanLine, m Message, d Dialect, st *Stats) {
	m.Line = l.Num
	if g.observe != nil {
		g.observe(&m, &l.Line)
	}
	if d == DialectAnthropic {
		g.anthropic = true
	}
	if g.copies > 0 {
		g.copies-- // a verbatim copy of a tail line: in the context, but not new history
		st.ExtendRecord(l)
	} else {
		st.CountMessage(&m)
	}
	g.refs = append(g.refs, ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(m.Tokens()), Msgs: 1, Sel: selMessage})
	if g.keep {
		g.kept = append(g.kept, m)
	}
}

// messageOf finds the chat message in a line: the line itself or crabtalk's "message" field.
func messageOf(doc gjson.Result) (gjson.Result, bool) {
	if doc.Get("role").Type == gjson.String {
		return doc, true
	}
	if m := doc.Get("message"); m.IsObject() && m.Get("role").Type == gjson.String {
		return m, true
	}
	return gjson.Result{}, false
}

// preparsed is a line walked ahead of the reader, by the range workers (scanFileRanges) or the pipeline's validators (Scan).
type preparsed struct {
	m  *Message // a generic message (nil for Claude Code lines: their walk holds it)
	d  Dialect
	ok bool // the line is a message
	// generic: made by preparseGeneric (a message of the plain formats); claude: made by
	// preparseClaude, the whole line's walk. A reader uses only its own kind.
	generic bool
	claude  *claude.Line
	gemini  *gemini.Pre // made by gemini.Preparse: a Gemini CLI message record's counts
	inPlace bool        // parsed in place (noText): points into the line's buffer
}

// AgentWalk is the walk of an agent's reader, which it takes through conv.Line.Walk.
func (p *preparsed) AgentWalk() any {
	switch {
	case p.claude != nil:
		return p.claude
	case p.gemini != nil:
		return p.gemini
	}
	return nil
}

// preparse parses a valid line of the given format with its text, ahead of the reader.
func preparse(f Format, t textMode, l *scanLine) *preparsed {
	p := new(preparsed)
	preparseInto(p, walkSlots{}, f, t, l)
	return p
}

// walkSlots are where preparseInto puts a line's walk for the formats that have one: a slot
// of per-range slices that the range workers give (one allocation per range rather than one
// or two per line), or nil, for one allocated then.
type walkSlots struct {
	claude *claude.Line
	gemini *gemini.Pre
}

// preparseInto is preparse into p; a Claude Code line's walk (see claudeLine) goes into
// slots.claude, a Gemini CLI message record's into slots.gemini. The "message" is parsed with the text mode t: in place for
// noText (the line's buffer outlives the reader's use of it), from an owned copy or detached
// (det) otherwise.
func preparseInto(p *preparsed, slots walkSlots, f Format, t textMode, l *scanLine) {
	// A windowed load parses the line in place, in the reader's batch buffer, and keeps none of
	// its bytes (see detach): a compaction needs the bytes of only its head and tail, and keeping
	// every line would double what it holds in memory.
	var det *scanLine
	if t == conv.WindowedText {
		det = l
	}
	if f == FormatClaude {
		cl := slots.claude
		if cl == nil {
			cl = new(claude.Line)
		}
		*cl = claude.ScanLine(jsonl.Value(conv.UnsafeString(l.Bytes)), t, det)
		*p = preparsed{ok: cl.HasMessage(), claude: cl, inPlace: true} // uuids point into the line
		return
	}
	if f == FormatGemini {
		g := slots.gemini
		if g == nil {
			g = new(gemini.Pre)
		}
		if gemini.Preparse(l, g) {
			*p = preparsed{ok: true, gemini: g}
		} else {
			*p = preparsed{}
		}
		return
	}
	*p = preparseGeneric(l.Bytes, t, det)
}

// preparseGeneric parses a valid line as a generic message with its text; ok is false for
// other lines (markers, meta, events), which the reader handles itself.
func preparseGeneric(line []byte, t textMode, det *scanLine) preparsed {
	v := jsonl.Value(conv.UnsafeString(line))
	var role, message jsonl.Value
	marker := false
	v.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "role", "message":
			val, n := rest.Prefix()
			if k == "role" {
				role = val
			} else {
				message = val
			}
			return n
		case "compact":
			marker = true
		}
		return -1
	})
	switch {
	case marker:
	case role.IsString():
		p := preparseMessage(v, t, det)
		p.generic = true
		return p
	case message.IsObject() && message.Get("role").IsString():
		p := preparseMessage(message, t, det)
		p.generic = true
		return p
	}
	return preparsed{generic: true, inPlace: t == conv.NoText}
}

// preparseMessage parses msg with its text from an owned copy: the message keeps substrings of
// it, and Raw is it.
func preparseMessage(msg jsonl.Value, t textMode, det *scanLine) preparsed {
	d, _ := messageDialectV(msg)
	if t == conv.NoText {
		// Counts only (stats): parsed in place, as the reader itself would.
		m := parseDialectV(msg, d, conv.NoText)
		return preparsed{m: &m, d: d, ok: true, inPlace: true}
	}
	if det != nil {
		m := parseDialectV(msg, d, t)
		conv.Detach(&m, det.Bytes, det.BytesOffset(), string(msg))
		return preparsed{m: &m, d: d, ok: true}
	}
	if t == conv.WindowedText {
		t = conv.WithText // windows only where the line is detached (they refer to the file)
	}
	own := []byte(msg)
	m := parseDialectV(jsonl.Value(conv.UnsafeString(own)), d, t)
	m.Raw = own
	return preparsed{m: &m, d: d, ok: true}
}

func parseDialectV(msg jsonl.Value, d Dialect, text textMode) Message {
	if d == DialectAnthropic {
		m := conv.AnthropicMessage(msg, text)
		m.MsgID = "" // only Claude Code splits responses over lines
		return m
	}
	return conv.OpenAIMessage(msg, text)
}

func parseDialect(msg gjson.Result, d Dialect, text textMode) Message {
	if d == DialectAnthropic {
		return parseAnthropicMessage(msg, text) // without MsgID: only Claude Code splits responses
	}
	return parseOpenAIMessage(msg, text)
}

func (g *genericReader) Finish(st *Stats) []ref {
	switch {
	case st.Markers > 0 || g.meta:
		st.Format = FormatCtxc
	case g.format == FormatOpenAI && g.anthropic:
		st.Format = FormatAnthropic
	default:
		st.Format = g.format
	}
	return g.refs
}

func (g *genericReader) Materialize(b []byte, r ref) ([]Message, error) {
	doc := gjson.ParseBytes(b)
	if r.Sel == selMarker {
		mk, ok := parseMarkerDoc(doc, conv.WithText)
		if !ok {
			return nil, fmt.Errorf("marker changed while reading")
		}
		out := append(mk.head, SummaryMessage(mk.summary, r.LineNum()))
		return out, nil
	}
	msg, ok := messageOf(doc)
	if !ok {
		return nil, fmt.Errorf("not a message")
	}
	d, _ := messageDialect(msg)
	m := parseDialect(msg, d, conv.WithText)
	m.Line = r.LineNum()
	m.Raw = []byte(msg.Raw)
	return []Message{m}, nil
}

// Wrappers over gjson values for the code that walks lines with gjson (detection, markers):
// the values' Raw text is a substring of the line, so converting costs nothing.

func parseOpenAIMessage(msg gjson.Result, text textMode) Message {
	return conv.OpenAIMessage(jsonl.Value(msg.Raw), text)
}
func parseAnthropicMessage(msg gjson.Result, text textMode) Message {
	m := conv.AnthropicMessage(jsonl.Value(msg.Raw), text)
	m.MsgID = ""
	return m
}

package recall

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/transcript"
)

// claudeLine searches one Claude Code record without decoding all of it. A record of a tool's
// output holds the output twice (message.content and toolUseResult), and DecodeRecord walks
// and unescapes all of it to give the one text the pattern is in: on the benchmark file that
// was most of the time. This validates the line as DecodeRecord does, in a walk that notes
// where the values that decide what the record is are (type, message, the message's role and
// content blocks), and decodes only the texts whose raw bytes hold the literal, so it finds
// what DecodeRecord and match find. ok is false when the record is not one it reads so (another
// type of record, a key written with an escape or twice, a text that is not a string, a tool
// call or other block that may hold the literal, a \u00XX escape of one of its characters):
// the caller decodes it.
func (g *grepper) claudeLine(line []byte, nodes []node) (h *Hit, ok bool, _ []node) {
	for len(line) > 0 && (line[len(line)-1] == '\r' || line[len(line)-1] == '\n') {
		line = line[:len(line)-1]
	}
	if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		line = line[3:]
	}
	if len(line) == 0 {
		return nil, false, nodes
	}
	s := unsafe.String(&line[0], len(line))
	nodes, escaped, valid := lineShape(s, nodes[:0], g.spelled)
	if !valid {
		return nil, true, nodes // DecodeRecord reads nothing from it either
	}
	if escaped || s[nodes[0].start] != '{' {
		return nil, false, nodes
	}
	key := func(n *node) string { return s[n.key0:n.key1] }
	val := func(n *node) string { return s[n.start:n.end] }
	// The record's members (every key that claudeRecord reads, once).
	typ, msg := -1, -1
	for i := 1; i < len(nodes); i++ {
		n := &nodes[i]
		if n.parent != 0 {
			continue
		}
		switch k := key(n); k {
		case `"type"`, `"message"`:
			at := &typ
			if k == `"message"` {
				at = &msg
			}
			if *at >= 0 {
				return nil, false, nodes
			}
			*at = i
		case `"isSidechain"`, `"isCompactSummary"`:
			if val(n) != "false" {
				return nil, false, nodes
			}
		case `"subtype"`, `"ctxc"`:
			return nil, false, nodes
		default:
			if strings.IndexByte(k, '\\') >= 0 {
				return nil, false, nodes
			}
		}
	}
	if typ < 0 || msg < 0 || s[nodes[msg].start] != '{' {
		return nil, false, nodes
	}
	var role string
	switch val(&nodes[typ]) {
	case `"user"`:
		role = "user"
	case `"assistant"`:
		role = "assistant"
	default:
		return nil, false, nodes
	}
	// The message's role and content.
	roleAt, content := -1, -1
	for i := msg + 1; i < len(nodes); i++ {
		n := &nodes[i]
		if n.parent != msg {
			continue
		}
		switch k := key(n); k {
		case `"role"`, `"content"`:
			at := &roleAt
			if k == `"content"` {
				at = &content
			}
			if *at >= 0 {
				return nil, false, nodes
			}
			*at = i
		default:
			if strings.IndexByte(k, '\\') >= 0 {
				return nil, false, nodes
			}
		}
	}
	if roleAt >= 0 {
		v := val(&nodes[roleAt])
		if v[0] != '"' || strings.IndexByte(v, '\\') >= 0 {
			return nil, false, nodes
		}
		if len(v) > 2 {
			role = v[1 : len(v)-1]
		}
	}
	// The texts a match can be in, in order (raw JSON strings); blocks and tool results count
	// for the role.
	var texts []string
	blocks, results := 0, 0
	switch c := -1; {
	case content < 0 || val(&nodes[content]) == "null":
	case s[nodes[content].start] == '"':
		texts = append(texts, val(&nodes[content]))
		blocks++
	case s[nodes[content].start] != '[':
		return nil, false, nodes
	default:
		c = content
		for i := c + 1; i < len(nodes); i++ {
			b := &nodes[i]
			if b.parent != c {
				continue
			}
			blocks++
			if s[b.start] != '{' {
				if g.mayHold(val(b)) {
					return nil, false, nodes // an opaque block
				}
				continue
			}
			var btyp, text, thinking, res string
			for j := i + 1; j < len(nodes) && nodes[j].start < b.end; j++ {
				m := &nodes[j]
				if m.parent != i {
					continue
				}
				var to *string
				switch k := key(m); k {
				case `"type"`:
					to = &btyp
				case `"text"`:
					to = &text
				case `"thinking"`:
					to = &thinking
				case `"content"`:
					to = &res
				default:
					if strings.IndexByte(k, '\\') >= 0 {
						return nil, false, nodes
					}
					continue
				}
				if *to != "" {
					return nil, false, nodes
				}
				*to = val(m)
			}
			if strings.IndexByte(btyp, '\\') >= 0 {
				return nil, false, nodes // a type the decoder reads and this would not
			}
			field := ""
			switch btyp {
			case `"text"`:
				field = text
			case `"thinking"`:
				field = thinking
			case `"tool_result"`, `"web_search_tool_result"`:
				results++
				field = res
			case `"image"`:
				continue // its data is not searched
			default:
				// A tool call (its name and arguments are searched as text), a compaction's
				// content, an opaque block: decoded when it may hold the literal.
				if g.mayHold(val(b)) {
					return nil, false, nodes
				}
				continue
			}
			switch {
			case field == "":
			case field[0] == '"':
				texts = append(texts, field)
			case g.mayHold(field):
				return nil, false, nodes
			}
		}
	}
	if results > 0 && results == blocks {
		role = "tool"
	}
	if g.opts.Roles != nil && !g.opts.Roles[role] {
		return nil, true, nodes
	}
	for _, raw := range texts {
		if !g.mayHold(raw) {
			continue // no match can be in it
		}
		if sn, found := g.firstMatch(raw); found {
			sn.Text = strings.Clone(sn.Text) // the text may point into the mapped file
			return &Hit{Path: g.path, Role: strings.Clone(role), Index: -1, Snippet: sn, Match: true}, true, nodes
		}
	}
	return nil, true, nodes
}

// firstMatch finds the first match in the decoded text of raw, a JSON string (quotes and all).
// A tool output is often long and the match near its start: for a pattern of bounded length
// (maxLen, no assertion) only a prefix is decoded, long enough that every position where a
// match may start before the one found was tried on all the bytes a match there could span,
// and that the snippet is whole (a decoded byte is at most six raw ones).
func (g *grepper) firstMatch(raw string) (Snippet, bool) {
	inner := raw[1 : len(raw)-1]
	if n := g.p.maxLen; n >= 0 {
		// The end of a prefix cut inside an escape (a surrogate pair: 12 bytes) decodes to
		// other bytes than the whole text has there: those are not relied on.
		const unsure = 16
		at := g.p.nextLit(unsafe.Slice(unsafe.StringData(inner), len(inner)), 0)
		if q := at + 6*(n+snipAfter+utf8.UTFMax+unsure); at >= 0 && q < len(inner) {
			text := transcript.Unescape(inner[:q])
			sure := len(text) - unsure
			if loc := g.p.re.FindStringIndex(text); loc != nil && loc[0]+n <= sure && loc[1]+snipAfter+utf8.UTFMax <= sure {
				return g.p.snippet(text, loc[0], loc[1]), true
			}
		}
	}
	text := transcript.DecodeString(raw)
	if loc := g.p.re.FindStringIndex(text); loc != nil {
		return g.p.snippet(text, loc[0], loc[1]), true
	}
	return Snippet{}, false
}

// mayHold reports whether raw JSON holds the pattern's literal (a line whose \u00XX escapes
// may spell it is not read here at all).
func (g *grepper) mayHold(raw string) bool {
	return raw != "" && g.p.nextLit(unsafe.Slice(unsafe.StringData(raw), len(raw)), 0) >= 0
}

// spelled reports whether c is one of the literal's characters (ignoring ASCII case with -i).
func (g *grepper) spelled(c byte) bool {
	if g.p.fold {
		c = lower(c)
	}
	return strings.IndexByte(string(g.p.lit), c) >= 0
}

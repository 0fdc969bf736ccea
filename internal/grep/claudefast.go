package grep

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/strscan"
	"github.com/ctxc/ctxc/internal/transcript"
)

// claudeLine searches one Claude Code record without decoding all of it. A record of a tool's
// output holds the output twice (message.content and toolUseResult), and DecodeRecord walks
// and unescapes all of it to give the one text the pattern is in: on the benchmark file that
// was most of the time. This validates the line as DecodeRecord does, in a walk that notes
// where the values that decide what the record is are (type, message, the message's role and
// content blocks), and decodes only the texts whose raw bytes hold the literal, so it finds
// what DecodeRecord and match find. ok is false when the record is not one it reads so (another
// type of record, a key written with an escape or twice, a text that is not a string, a tool
// call whose arguments are not an object or hold a \u escape, another block that may hold the
// literal, a \u00XX escape of one of its characters): the caller decodes it.
func (g *grepper) claudeLine(line []byte, sc *lineScratch) (h *Hit, ok bool) {
	s, nodes, done, read := g.shapeRecord(line, sc)
	if done {
		return nil, read
	}
	role, msg, ok := claudeRecordRole(s, nodes, &sc.esc)
	if !ok {
		return nil, false
	}
	role, content, ok := claudeMessage(s, nodes, &sc.esc, msg, role)
	if !ok {
		return nil, false
	}
	// The texts a match can be in, in order (sc.texts keeps their room for the next line).
	texts, blocks, results, ok := g.claudeContent(s, nodes, content, sc.texts[:0], sc)
	sc.texts = texts[:0]
	if !ok {
		return nil, false
	}
	if results > 0 && results == blocks {
		role = "tool" // a message of tool results only
	}
	return g.searchTexts(texts, role, sc)
}

// claudeRecordRole reads the members of a record for claudeLine (every key that claudeRecord
// reads, once): the role its type gives and its message, an object. ok is false for a record
// claudeLine does not read: another type, no message, or a member claudeRecordMember refuses.
func claudeRecordRole(s string, nodes []node, esc *uEscapes) (role string, msg int, ok bool) {
	typ, msg, ok := twoMembers(s, nodes, esc, 0, `"type"`, `"message"`, claudeRecordMember)
	if !ok || typ < 0 || msg < 0 || s[nodes[msg].start] != '{' {
		return "", -1, false
	}
	switch nodes[typ].raw(s) {
	case `"user"`:
		return "user", msg, true
	case `"assistant"`:
		return "assistant", msg, true
	}
	return "", -1, false
}

// claudeRecordMember says whether a member of a record (key k, value v as written) other than
// its type and message leaves it a record that claudeLine reads: a sidechain's message is
// searched as any other (a subagent file's conversation is all sidechain); a compact summary's
// is read by the decoder, and so is one with a subtype or ctxc's provenance.
func claudeRecordMember(k, v string) bool {
	switch k {
	case `"isSidechain"`:
		return v == "false" || v == "true"
	case `"isCompactSummary"`:
		return v == "false"
	case `"subtype"`, `"ctxc"`:
		return false
	}
	return true
}

// claudeMessage reads the members of the message nodes[msg] for claudeLine: its role (role, the
// record's, unless the message names one) and its content (-1: none). ok is false for a role
// that is not a string written plainly.
func claudeMessage(s string, nodes []node, esc *uEscapes, msg int, role string) (_ string, content int, ok bool) {
	roleAt, content, ok := twoMembers(s, nodes, esc, msg, `"role"`, `"content"`, nil)
	if !ok {
		return "", -1, false
	}
	if roleAt >= 0 {
		v := nodes[roleAt].raw(s)
		if v[0] != '"' || strings.IndexByte(v, '\\') >= 0 {
			return "", -1, false
		}
		if v != `""` {
			role = v[1 : len(v)-1]
		}
	}
	return role, content, true
}

// claudeContent appends to texts the texts of a message's content nodes[content] (-1: none)
// that a match can be in, in order, and counts its blocks and tool results. ok is false, and
// the line is for the decoder, for content that is not null, a string or an array, or a block
// that claudeBlock does not read.
func (g *grepper) claudeContent(s string, nodes []node, content int, texts []claudeText, sc *lineScratch) (_ []claudeText, blocks, results int, ok bool) {
	switch {
	case content < 0 || nodes[content].raw(s) == "null":
		return texts, 0, 0, true
	case s[nodes[content].start] == '"':
		return append(texts, claudeText{raw: nodes[content].raw(s)}), 1, 0, true
	case s[nodes[content].start] != '[':
		return texts, 0, 0, false
	}
	for i := content + 1; i < len(nodes); i++ {
		if nodes[i].parent != content {
			continue
		}
		blocks++
		var result bool
		if texts, result, ok = g.claudeBlock(s, nodes, i, texts, sc); !ok {
			return texts, 0, 0, false
		}
		if result {
			results++
		}
	}
	return texts, blocks, results, true
}

// claudeBlock appends to texts the text of the content block nodes[i] that a match can be in
// (its text, thinking, tool result or tool call), and says whether it is a tool result. ok is
// false, and the line is for the decoder, for a block it does not read that may hold the
// literal (an opaque one, a compaction's content), members it does not read so
// (claudeBlockFields), or a tool call that addCall leaves to the decoder.
func (g *grepper) claudeBlock(s string, nodes []node, i int, texts []claudeText, sc *lineScratch) (_ []claudeText, result, ok bool) {
	b := &nodes[i]
	if s[b.start] != '{' {
		return texts, false, !g.mayHold(b.raw(s), sc) // an opaque block
	}
	f, ok := claudeBlockFields(s, nodes, i, &sc.esc)
	if !ok {
		return texts, false, false
	}
	var field string
	switch f.typ {
	case `"text"`:
		field = f.text
	case `"thinking"`:
		field = f.thinking
	case `"tool_result"`, `"web_search_tool_result"`:
		result, field = true, f.content
	case `"image"`:
		return texts, false, true // its data is not searched
	case `"tool_use"`, `"server_tool_use"`:
		texts, ok = g.addCall(texts, s, b, f.name, f.input, sc)
		return texts, false, ok
	default:
		// A compaction's content, an opaque block: decoded when it may hold the literal.
		return texts, false, !g.mayHold(b.raw(s), sc)
	}
	texts, ok = g.addText(texts, field, sc)
	return texts, result, ok
}

// claudeFields are the members of a content block that claudeBlock reads, as written ("" when
// absent).
type claudeFields struct {
	typ, text, thinking, content, name, input string
}

// claudeBlockFields reads the members of the content block nodes[i] that claudeBlock reads. ok
// is false when one of them is there twice (the decoder would read the last), when another key
// is written with an escape (it may spell one of them), or when the type holds an escape (a
// type the decoder reads and this would not).
func claudeBlockFields(s string, nodes []node, i int, esc *uEscapes) (f claudeFields, ok bool) {
	for j := i + 1; j < len(nodes) && nodes[j].start < nodes[i].end; j++ {
		m := &nodes[j]
		if m.parent != i {
			continue
		}
		var to *string
		switch k := s[m.key0:m.key1]; k {
		case `"type"`:
			to = &f.typ
		case `"text"`:
			to = &f.text
		case `"thinking"`:
			to = &f.thinking
		case `"content"`:
			to = &f.content
		case `"name"`:
			to = &f.name
		case `"input"`:
			to = &f.input
		default:
			if esc.keys && strings.IndexByte(k, '\\') >= 0 {
				return f, false
			}
			continue
		}
		if *to != "" {
			return f, false
		}
		*to = m.raw(s)
	}
	return f, strings.IndexByte(f.typ, '\\') < 0
}

// addCall appends a tool call's text (its name, then its arguments' keys and values, as
// texts() renders them) when its block b may hold the literal; ok is false, and the line is
// for the decoder, when its name is not a string, its arguments not an object, or it holds a
// \u escape (whose decoding this would have to match gjson's on).
func (g *grepper) addCall(texts []claudeText, s string, b *node, name, args string, sc *lineScratch) (_ []claudeText, ok bool) {
	if !g.mayHold(s[b.start:b.end], sc) {
		return texts, true
	}
	if name == "" || name[0] != '"' || args == "" || args[0] != '{' || sc.esc.in(b.start, b.end) && strings.Contains(s[b.start:b.end], `\u`) {
		return texts, false
	}
	return append(texts, claudeText{raw: name, args: args}), true
}

// addText appends a text value v (as written): a string; nothing when v is absent or null
// (the readers' text is empty then). ok is false, and the line is for the decoder, for another
// value that may hold the literal (the readers search it as written).
func (g *grepper) addText(texts []claudeText, v string, sc *lineScratch) (_ []claudeText, ok bool) {
	switch {
	case v == "" || v == "null":
		return texts, true
	case v[0] == '"':
		return append(texts, claudeText{raw: v}), true
	}
	return texts, !g.mayHold(v, sc)
}

// searchTexts looks for the first match in a message's texts, in order, for claudeLine and
// piLine; ok is false when a tool call's arguments do not read as they should (the caller's
// line goes to the decoder).
func (g *grepper) searchTexts(texts []claudeText, role string, sc *lineScratch) (h *Hit, ok bool) {
	if g.opts.Roles != nil && !g.opts.Roles[role] {
		return nil, true
	}
	for _, t := range texts {
		var sn Snippet
		var found bool
		switch {
		case t.args != "":
			raw, ok := callRaw(sc.call, t.raw, t.args)
			if !ok {
				return nil, false
			}
			sc.call = raw
			sn, found = g.firstMatch(unsafe.String(unsafe.SliceData(raw), len(raw)), sc)
		case g.mayHold(t.raw, sc):
			sn, found = g.firstMatch(t.raw, sc)
		}
		if found { // sn.Text is its own copy (snippetOf)
			return &Hit{Path: g.path, Role: ownRole(role), Index: -1, Snippet: sn, Match: true}, true
		}
	}
	return nil, true
}

// firstMatch finds the first match in the decoded text of raw, a JSON string (quotes and all).
// A tool output is often long and the match far into it: for a pattern of bounded length
// (maxLen, no assertion) only a window around the literal's first occurrence is decoded. It
// starts far enough before it that a match through it and the snippet before it are inside
// (checked on what it decodes to; no match starts earlier, as it would hold an earlier
// occurrence), at an escape's start; it ends far enough after it that every place a match may
// start before the one found was tried on all the bytes such a match could span, and that the
// snippet is whole. A decoded byte is one to six raw ones: a window of 1.25 raw bytes for each
// byte it needs is tried first (code and logs have an escape every few dozen bytes), then
// one of two, then one of six, then the whole text.
func (g *grepper) firstMatch(raw string, sc *lineScratch) (Snippet, bool) {
	inner := raw[1 : len(raw)-1]
	lit := unsafe.Slice(unsafe.StringData(inner), len(inner))
	// Each occurrence of the literal in turn (a few at most): a window that finds no match
	// rules out every match that holds it, and the next occurrence the window did not reach
	// is tried.
	at := g.litIn(raw, sc)
	if at >= 0 {
		at-- // in inner (the literal holds no quote)
	}
	for tries := 0; at >= 0 && g.p.maxLen >= 0 && tries < 4; tries++ {
		sn, found, next := g.windowMatch(inner, at, sc)
		if found || next < 0 {
			return sn, found
		}
		if next == len(inner) {
			break // undecided: the whole text
		}
		at = g.p.nextLit(lit, next)
		if at < 0 {
			return Snippet{}, false
		}
	}
	text := jsonl.Value(raw).Str()
	if loc, ok := g.p.find(text); ok {
		return g.p.snippet(text, loc[0], loc[1]), true
	}
	return Snippet{}, false
}

// windowMatch looks for the first match of a text (inner: a JSON string's, between its
// quotes) in a window around at, an occurrence of the literal such that no match starts before
// the matches that hold it. found: the text's first match; else next is where in inner the
// next occurrence to try may start (none before it is in a match that starts after the ones
// the window ruled out), -1 when the text has no match, or len(inner) when the window could
// not tell.
func (g *grepper) windowMatch(inner string, at int, sc *lineScratch) (sn Snippet, found bool, next int) {
	n := g.p.maxLen
	// The end of a window cut inside an escape (a surrogate pair: 12 bytes) decodes to other
	// bytes than the whole text has there, and its start may be inside a character: those
	// bytes are not relied on.
	const unsure = 16
	before := snipBefore + 2*utf8.UTFMax
	at0 := escapeStart(inner, at)          // the literal may start inside an escape's bytes
	for _, x := range [...]int{5, 8, 24} { // raw bytes per byte needed, in quarters
		from, end := 0, min(len(inner), at+x*(n+snipAfter+utf8.UTFMax+unsure)/4)
		if back := at - x*(n+before)/4; back > 0 {
			from = escapeStart(inner, back)
		}
		if from > at0 {
			break
		}
		sc.text = jsonl.AppendUnescape(sc.text[:0], inner[from:at0])
		k := len(sc.text) // at most where the occurrence is decoded
		if from > 0 && k < n+before {
			continue // a match may start before the window, or its snippet
		}
		sc.text = jsonl.AppendUnescape(sc.text, inner[at0:end])
		text := unsafe.String(unsafe.SliceData(sc.text), len(sc.text)) // snippetOf copies
		s0 := max(0, k-n)                                              // no match starts before: the regexp starts there
		loc, found := g.p.find(text[s0:])
		if from == 0 && end == len(inner) { // the whole text
			if !found {
				return Snippet{}, false, -1
			}
			return g.p.snippet(text, s0+loc[0], s0+loc[1]), true, 0
		}
		sure := len(text)
		if end < len(inner) {
			sure -= unsure
		}
		if !found {
			// No match starts before sure-n in the window's text: an occurrence whose
			// matches start there is at most that far into the raw bytes (a decoded byte
			// is at least one raw one).
			if next := from + sure - n; next > at {
				return Snippet{}, false, next
			}
			continue // the window did not reach past the occurrence's matches
		}
		if s0+loc[0]+n <= sure && s0+loc[1]+snipAfter+utf8.UTFMax <= sure && (from == 0 || s0+loc[0] >= before) {
			return g.p.snippet(text, s0+loc[0], s0+loc[1]), true, 0
		}
	}
	return Snippet{}, false, len(inner)
}

// escapeStart moves i (in the text between a JSON string's quotes) back to the start of the
// escape it is inside of, if any (and to the first half of a surrogate pair), so that decoding
// from there gives the text's own characters.
func escapeStart(s string, i int) int {
	for moved := true; moved; {
		moved = false
		for e := i - 1; e >= 0 && e >= i-5; e-- {
			if s[e] != '\\' || !escapes(s, e) {
				continue
			}
			if e+1 < len(s) && (s[e+1] == 'u' && i <= e+5 || i == e+1) {
				i, moved = e, true
			}
			break
		}
		// A low surrogate's escape right after a high one's: decoded together.
		if e := i - 6; e >= 0 && strings.HasPrefix(s[i:], "\\u") && len(s) >= i+4 && (s[i+2] == 'd' || s[i+2] == 'D') &&
			strings.ContainsRune("cdefCDEF", rune(s[i+3])) && s[e] == '\\' && s[e+1] == 'u' && escapes(s, e) &&
			(s[e+2] == 'd' || s[e+2] == 'D') && strings.ContainsRune("89abAB", rune(s[e+3])) {
			i, moved = e, true
		}
	}
	return i
}

// escapes reports whether the backslash at s[e] starts an escape: an even number of
// backslashes before it.
func escapes(s string, e int) bool {
	n := 0
	for e-1-n >= 0 && s[e-1-n] == '\\' {
		n++
	}
	return n%2 == 0
}

// mayHold reports whether raw JSON (most often a value of the line at hand: litIn) holds the
// pattern's literal (a line whose \u00XX escapes may spell it is not read here at all).
func (g *grepper) mayHold(raw string, sc *lineScratch) bool {
	return g.litIn(raw, sc) >= 0
}

// litIn returns the index in raw of the literal's first occurrence, or -1. raw is most often
// a value of the line that shapeIn walked, whose first occurrence the prefilter found
// (sc.lit): a value that ends before it holds none, and one that holds it has it first there;
// only a value after it is searched. A line's long tool output was searched from its start
// twice (whether it holds the literal, then where), often 10 KB to its first occurrence.
func (g *grepper) litIn(raw string, sc *lineScratch) int {
	if raw == "" {
		return -1
	}
	if l := sc.lit; sc.litKnown {
		off := int(uintptr(unsafe.Pointer(unsafe.StringData(raw))) - uintptr(unsafe.Pointer(unsafe.StringData(sc.line))))
		if off >= 0 && off+len(raw) <= len(sc.line) {
			// Every occurrence in raw is one of the line's, at l or after it.
			switch last := off + len(raw) - len(g.p.lit); {
			case last < l:
				return -1
			case off <= l:
				return l - off
			}
		}
	}
	return g.p.nextLit(unsafe.Slice(unsafe.StringData(raw), len(raw)), 0)
}

// shapeRecord walks a line for claudeLine and plainLine (lineShape), its end and a BOM
// trimmed: s and its values when it is an object without a \u00XX escape of one of the
// literal's characters; else done, and read says whether the line is read (an invalid line: as
// DecodeRecord, no record) or is for the decoder. A line that shapeIn walked already is not
// walked again.
func (g *grepper) shapeRecord(line []byte, sc *lineScratch) (s string, nodes []node, done, read bool) {
	if sc.walked {
		sc.walked = false
		s, nodes = sc.line, sc.nodes
		if sc.esc.spelled || s[nodes[0].start] != '{' {
			return "", nil, true, false
		}
		return s, nodes, false, false
	}
	for len(line) > 0 && (line[len(line)-1] == '\r' || line[len(line)-1] == '\n') {
		line = line[:len(line)-1]
	}
	if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		line = line[3:]
	}
	if len(line) == 0 {
		return "", nil, true, false
	}
	s = unsafe.String(&line[0], len(line))
	nodes, _, esc, valid := lineShape(s, sc.nodes[:0], g.p.spells)
	sc.nodes, sc.esc = nodes, esc
	switch {
	case !valid:
		return "", nil, true, true
	case esc.spelled || s[nodes[0].start] != '{':
		return "", nil, true, false
	}
	return s, nodes, false, false
}

// shapeIn walks the line that starts at region[ls] for shapeRecord, in the formats that
// claudeLine and plainLine read, and returns where the line ends: the walk that validates it
// finds its end (lineShape), so its bytes are read once, where finding the end first read
// them twice (most lines a frequent pattern picks are long tool outputs). It returns -1 when
// the line is not valid (or is empty): the caller finds its end, and shapeRecord walks it
// again (as rare as invalid lines are).
func (g *grepper) shapeIn(region []byte, ls, at int, sc *lineScratch) int {
	if g.format != transcript.FormatClaude && g.format != transcript.FormatPi && !g.format.IsGeneric() {
		return -1
	}
	start := ls
	if len(region)-ls >= 3 && region[ls] == 0xEF && region[ls+1] == 0xBB && region[ls+2] == 0xBF {
		start += 3
	}
	if start >= len(region) {
		return -1
	}
	s := unsafe.String(&region[start], len(region)-start)
	nodes, end, esc, valid := lineShape(s, sc.nodes[:0], g.p.spells)
	sc.nodes = nodes
	if !valid {
		return -1
	}
	sc.walked, sc.line, sc.esc = true, s[:end], esc
	// The candidate the prefilter found (the line's first) may be the literal, or a \u
	// escape before it.
	if at >= start && at+len(g.p.lit) <= len(region) && g.p.litAt(region, at) {
		sc.lit, sc.litKnown = at-start, true
	}
	return start + end
}

// claudeText is a text a match can be in: a JSON string (quotes and all), or a tool call's
// name (a JSON string) with its arguments (args: a JSON object).
type claudeText struct {
	raw, args string
}

// callRaw renders a tool call as texts() does from the decoded block (its name, then each
// argument's key and value on lines of their own: a string value decoded, another value as
// written), but as a JSON string (quotes and all) whose decoded text is that rendering, built
// from the raw bytes, so that firstMatch decodes only a window of it: the separators are
// written as \n escapes, and a value that is not a string is escaped. args is part of a line
// that was validated; ok is false if it does not read as such.
func callRaw(dst []byte, name, args string) (raw []byte, ok bool) {
	b := append(dst[:0], '"')
	b = append(b, name[1:len(name)-1]...)
	b = append(b, `\n`...)
	i := strscan.SkipSpace(args, 1)
	if i < len(args) && args[i] == '}' {
		return append(b, '"'), true
	}
	for first := true; ; first = false {
		if i >= len(args) || args[i] != '"' {
			return nil, false
		}
		keyEnd := strscan.StringEnd(args, i, nil)
		if keyEnd < 0 {
			return nil, false
		}
		v := afterColon(args, keyEnd)
		if v < 0 || v >= len(args) {
			return nil, false
		}
		end := valueEnd(args, v)
		if end < 0 {
			return nil, false
		}
		if !first {
			b = append(b, `\n`...)
		}
		b = append(b, args[i+1:keyEnd-1]...)
		b = append(b, `\n`...)
		if args[v] == '"' {
			b = append(b, args[v+1:end-1]...)
		} else {
			for k := v; k < end; k++ {
				switch c := args[k]; c {
				case '"', '\\':
					b = append(b, '\\', c)
				case '\n':
					b = append(b, `\n`...)
				case '\r':
					b = append(b, `\r`...)
				case '\t':
					b = append(b, `\t`...)
				default:
					b = append(b, c)
				}
			}
		}
		i = strscan.SkipSpace(args, end)
		switch {
		case i < len(args) && args[i] == ',':
			i = strscan.SkipSpace(args, i+1)
		case i < len(args) && args[i] == '}':
			return append(b, '"'), true
		default:
			return nil, false
		}
	}
}

// valueEnd returns where the JSON value that starts at s[i] ends (s being valid JSON), or -1.
func valueEnd(s string, i int) int {
	switch s[i] {
	case '"':
		return strscan.StringEnd(s, i, nil)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				if i = strscan.StringEnd(s, i, nil); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	for i < len(s) && strings.IndexByte(",}] \t\r\n", s[i]) < 0 {
		i++
	}
	return i
}

// lineScratch is what a worker's claudeLine calls reuse: the line's nodes and a decoded window.
type lineScratch struct {
	nodes []node
	// walked: nodes are those of the line at hand, in line (its text, without its end), as
	// shapeIn walked it. esc: the line's \u escapes, as lineShape saw them.
	walked bool
	line   string
	esc    uEscapes
	// lit is the index in line of the literal's first occurrence, when litKnown.
	lit      int
	litKnown bool
	text     []byte
	call     []byte // a tool call as a JSON string (callRaw)
	texts    []claudeText
}

// ownRole is role as a string of its own (it may point into the mapped file), without a copy
// for the usual ones.
func ownRole(role string) string {
	switch role {
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "tool":
		return "tool"
	}
	return strings.Clone(role)
}

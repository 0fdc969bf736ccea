package grep

import "strings"

// piLine is claudeLine for a pi session entry in its common shapes: a "message" entry whose
// message's role is plainly written and one of user (also custom and hookMessage, which pi
// sends as the user's), assistant or toolResult. Its texts are found as the pi reader finds
// them (transcript's piMessage: text blocks, thinking, tool calls rendered as texts() renders
// them, a tool result's single text) and searched in windows (searchTexts). ok is false, and
// the caller decodes the line, for any other entry (compactions, summaries, bash executions),
// a key written with an escape or twice, a value of another type than the reader expects that
// holds the literal, a tool result of several parts that holds it, or a \u00XX escape of one
// of its characters. FuzzGrepPrefilter holds it to the decoder on the fixtures of every format.
func (g *grepper) piLine(line []byte, sc *lineScratch) (h *Hit, ok bool) {
	s, nodes, done, read := g.shapeRecord(line, sc)
	if done {
		return nil, read
	}
	val := func(n *node) string { return s[n.start:n.end] }
	typ, msg, ok := twoMembers(s, nodes, &sc.esc, 0, `"type"`, `"message"`, nil)
	if !ok || typ < 0 || msg < 0 || val(&nodes[typ]) != `"message"` || s[nodes[msg].start] != '{' {
		return nil, false
	}
	roleAt, content, ok := twoMembers(s, nodes, &sc.esc, msg, `"role"`, `"content"`, nil)
	if !ok || roleAt < 0 {
		return nil, false
	}
	texts := sc.texts[:0]
	defer func() { sc.texts = texts[:0] }()
	var c string // the content as written; "" when absent
	if content >= 0 {
		c = val(&nodes[content])
	}
	var role string
	switch val(&nodes[roleAt]) {
	case `"user"`, `"custom"`, `"hookMessage"`:
		role = "user"
		if c != "" && c[0] == '[' {
			texts, ok = g.piBlocks(s, nodes, content, false, texts, sc)
		} else {
			texts, ok = g.addText(texts, c, sc)
		}
	case `"assistant"`:
		role = "assistant"
		if c == "" || c[0] != '[' {
			return nil, false
		}
		texts, ok = g.piBlocks(s, nodes, content, true, texts, sc)
	case `"toolResult"`:
		// One tool result: a string, or an array of parts joined by line breaks (only a
		// single text part is read here).
		role = "tool"
		if c == "" || c[0] != '[' {
			texts, ok = g.addText(texts, c, sc)
		} else if text, one := g.piSingleText(s, nodes, content); one {
			texts, ok = g.addText(texts, text, sc)
		} else {
			ok = !g.mayHold(c, sc)
		}
	default:
		return nil, false
	}
	if !ok {
		return nil, false
	}
	return g.searchTexts(texts, role, sc)
}

// piBlocks appends the texts of the content blocks of nodes[content], an array, as pi's
// reader reads them: a user's (text, image, anything else opaque) or, with assistant, an
// assistant's (also thinking and tool calls). ok is false when the line is for the decoder.
func (g *grepper) piBlocks(s string, nodes []node, content int, assistant bool, texts []claudeText, sc *lineScratch) (_ []claudeText, ok bool) {
	val := func(n *node) string { return s[n.start:n.end] }
	for i := content + 1; i < len(nodes); i++ {
		b := &nodes[i]
		if b.parent != content {
			continue
		}
		if s[b.start] != '{' {
			if g.mayHold(val(b), sc) {
				return texts, false // an opaque block
			}
			continue
		}
		var btyp, text, thinking, name, args string
		for j := i + 1; j < len(nodes) && nodes[j].start < b.end; j++ {
			m := &nodes[j]
			if m.parent != i {
				continue
			}
			var to *string
			switch k := s[m.key0:m.key1]; {
			case k == `"type"`:
				to = &btyp
			case k == `"text"`:
				to = &text
			case assistant && k == `"thinking"`:
				to = &thinking
			case assistant && k == `"name"`:
				to = &name
			case assistant && k == `"arguments"`:
				to = &args
			case sc.esc.keys && strings.IndexByte(k, '\\') >= 0:
				return texts, false
			default:
				continue
			}
			if *to != "" {
				return texts, false // written twice: the reader takes the last
			}
			*to = val(m)
		}
		field := ""
		switch {
		case btyp == `"text"`:
			field = text
		case assistant && btyp == `"thinking"`:
			field = thinking
		case btyp == `"image"`:
			continue // not searched
		case assistant && btyp == `"toolCall"`:
			if texts, ok = g.addCall(texts, s, b, name, args, sc); !ok {
				return texts, false
			}
			continue
		default:
			// An opaque block (or a type written with an escape): decoded when it may hold
			// the literal.
			if g.mayHold(val(b), sc) {
				return texts, false
			}
			continue
		}
		if texts, ok = g.addText(texts, field, sc); !ok {
			return texts, false
		}
	}
	return texts, true
}

// piSingleText returns the text of a tool result's content nodes[content] (an array) when it
// is one part, an object of a plain text type whose "text" is a string ("" when the content
// has no part, or one image); ok is false for any other content.
func (g *grepper) piSingleText(s string, nodes []node, content int) (text string, ok bool) {
	part := -1
	for i := content + 1; i < len(nodes) && nodes[i].start < nodes[content].end; i++ {
		if nodes[i].parent == content {
			if part >= 0 {
				return "", false
			}
			part = i
		}
	}
	if part < 0 {
		return "", true
	}
	if s[nodes[part].start] != '{' {
		return "", false
	}
	typ, t, ok := twoMembers(s, nodes, &uEscapes{keys: true}, part, `"type"`, `"text"`, nil)
	if !ok || typ < 0 {
		return "", false
	}
	switch s[nodes[typ].start:nodes[typ].end] {
	case `"image"`, `"image_url"`, `"input_image"`:
		return "", true
	case `"text"`, `"input_text"`, `"output_text"`:
		if t >= 0 && s[nodes[t].start] == '"' {
			return s[nodes[t].start:nodes[t].end], true
		}
	}
	return "", false
}

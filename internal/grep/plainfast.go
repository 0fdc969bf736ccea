package grep

// plainLine is claudeLine for a line of the plain message formats (OpenAI, Anthropic, ctxc)
// in its most common shape: an object whose "role" is one of user, assistant, system,
// developer and tool, written plainly, and whose "content" is a string. Only that string is
// searched (in windows: firstMatch), where decoding the line decoded all of it. ok is false,
// and the caller decodes the line, for any other shape: another member that may hold the
// literal (tool calls, reasoning, refusals...), a key written with an escape or twice, a
// "compact" (a ctxc marker) or "message" member, a \u00XX escape of one of the literal's
// characters. FuzzGrepPrefilter holds it to the decoder on the fixtures of every format.
func (g *grepper) plainLine(line []byte, sc *lineScratch) (h *Hit, ok bool) {
	s, nodes, done, read := g.shapeRecord(line, sc)
	if done {
		return nil, read
	}
	roleAt, content, ok := twoMembers(s, nodes, &sc.esc, 0, `"role"`, `"content"`, func(k, v string) bool {
		return k != `"compact"` && k != `"message"` && !g.mayHold(v, sc)
	})
	if !ok {
		return nil, false
	}
	if roleAt < 0 || content < 0 {
		return nil, false
	}
	var role string
	switch s[nodes[roleAt].start:nodes[roleAt].end] {
	case `"user"`:
		role = "user"
	case `"assistant"`:
		role = "assistant"
	case `"system"`:
		role = "system"
	case `"developer"`:
		role = "developer"
	case `"tool"`:
		role = "tool"
	default:
		return nil, false
	}
	text := s[nodes[content].start:nodes[content].end]
	if text[0] != '"' {
		return nil, false
	}
	if g.opts.Roles != nil && !g.opts.Roles[role] || !g.mayHold(text, sc) {
		return nil, true
	}
	if sn, found := g.firstMatch(text, sc); found {
		return &Hit{Path: g.path, Role: role, Index: -1, Snippet: sn, Match: true}, true
	}
	return nil, true
}

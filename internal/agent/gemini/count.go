package gemini

import (
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// The walk of a Gemini CLI message record for the statistics. Statistics count a session's
// message records one by one (the range workers walk each ahead of the reader), and building
// each record's messages only to count them cost more than the walk itself: blocks allocated per
// part, and the collector running under ctxc's soft memory limit. So the walk adds the blocks up
// as it makes them (geminiTally), with the same functions that make them for a load
// (conv.GeminiPartBlock, geminiThought, toolCallBlockV, geminiEachResultBlock) and the same rules
// for which messages a record yields (geminiRecordMessages): the figures are the messages' by
// construction, and TestGeminiCountsMatchMessages holds the two to it.

// geminiTally is what a message's blocks add up to, in their order, as the statistics see them:
// Message's Chars, Images, ToolCalls and ToolResults, statsRole's rule and dominantKind.
type geminiTally struct {
	blocks, calls, results, thinking, images int32
	chars                                    int64
	kind                                     conv.BlockKind // the first block with the most chars
	best                                     int64          // that block's chars plus one; 0 before any block
}

// add adds block b after the blocks already added.
func (t *geminiTally) add(b conv.Block) {
	t.blocks++
	switch b.Kind {
	case conv.BlockToolCall:
		t.calls++
	case conv.BlockToolResult:
		t.results++
	case conv.BlockThinking:
		t.thinking++
	case conv.BlockImage:
		t.images++
	}
	t.images += int32(b.Images)
	t.chars += int64(b.Chars)
	c := int64(b.Chars)
	if b.Kind == conv.BlockImage {
		c = estimate.ImageTokens * estimate.CharsPerToken
	}
	if c+1 > t.best {
		t.kind, t.best = b.Kind, c+1
	}
}

// then adds u's blocks after t's.
func (t *geminiTally) then(u geminiTally) {
	t.blocks += u.blocks
	t.calls += u.calls
	t.results += u.results
	t.thinking += u.thinking
	t.images += u.images
	t.chars += u.chars
	if u.best > t.best {
		t.kind, t.best = u.kind, u.best
	}
}

// role is the message's role in the statistics: a tool message when every block is a result.
func (t *geminiTally) role(r conv.Role) conv.Role {
	if t.blocks > 0 && t.results == t.blocks {
		return conv.RoleTool
	}
	return r
}

// tokens is Message.Tokens.
func (t *geminiTally) tokens() int32 {
	return int32(estimate.FromChars(int(t.chars)) + int(t.images)*estimate.ImageTokens)
}

// push records the message of blocks t (role r) as the record's next message.
func (p *Pre) push(t *geminiTally, r conv.Role) {
	c := &p.c
	c.roles[c.n], c.tokens[c.n], c.kinds[c.n] = geminiRoleIndex(t.role(r)), t.tokens(), uint8(t.kind)
	c.n++
	c.calls += t.calls
	c.results += t.results
	c.images += t.images
	c.chars += t.chars
}

// geminiWalk walks record v into p: what the messages geminiRecordMessages yields count, and
// the response's usage. It reports whether v is a message record line (an id, no rewind).
func geminiWalk(p *Pre, v jsonl.Value) (message bool) {
	var w geminiCount
	v.Walk(w.member)
	*p = Pre{key: conv.IDKey(w.id.Str())}
	typ := w.typ.Str()
	switch typ {
	case "user":
		if !geminiIgnoredUser(w.prefix.String()) {
			p.push(&w.parts, conv.RoleUser)
			p.summary = w.summary
		}
	case "gemini":
		w.model(p)
	}
	if typ == "gemini" && w.tokens.IsObject() {
		p.hasUsage, p.usage = true, geminiUsage(w.tokens)
	}
	return !w.rewind.IsString() && w.id.IsString()
}

// geminiCount is a record's walk. Its type, which decides what the content makes, may come after
// the content: the content's parts are added up as they are walked (conv.GeminiContentMessage), with
// the start of their text (geminiContentPrefix: an ignored user message) and whether the first
// opens a summary (conv.GeminiSummaryParts), as are the thoughts and the tool calls (both the calls
// and their results: geminiModelMessages). Each member is thus walked once.
type geminiCount struct {
	id, typ, tokens, rewind, content jsonl.Value
	parts, thoughts, calls, results  geminiTally
	prefix                           geminiPrefix
	summary, inContent               bool
}

// member reads the record's member k, whose value starts at rest, and returns its length.
func (w *geminiCount) member(k string, rest jsonl.Value) int {
	switch k {
	case "content":
		w.parts, w.prefix.n, w.summary, w.inContent = geminiTally{}, 0, false, false
		n := conv.GeminiPartsAt(rest, w.part)
		w.content = rest[:n]
		return n
	case "thoughts":
		w.thoughts = geminiTally{}
		return rest.Walk(func(_ string, r jsonl.Value) int {
			t, n := r.Prefix()
			w.thoughts.add(geminiThought(t, conv.NoText))
			return n
		})
	case "toolCalls":
		w.calls, w.results = geminiTally{}, geminiTally{}
		return rest.Walk(func(_ string, r jsonl.Value) int {
			c, n := geminiCallAt(r)
			w.calls.add(conv.ToolCallBlockV("", c.name.Str(), c.args, conv.NoText))
			geminiEachResultBlock(c, conv.NoText, w.results.add)
			return n
		})
	case "id", "type", "tokens", "$rewindTo":
		val, n := rest.Prefix()
		switch k {
		case "id":
			w.id = val
		case "type":
			w.typ = val
		case "tokens":
			w.tokens = val
		default:
			w.rewind = val
		}
		return n
	}
	return -1
}

// part adds a part of the content (f: its members, when it is not a string).
func (w *geminiCount) part(p jsonl.Value, f conv.GeminiPart) {
	first := !w.inContent
	w.inContent = true
	if p.IsString() {
		if first {
			w.summary = conv.GeminiSummaryText(p)
		}
		w.prefix.addOf(p, nil)
		w.parts.add(conv.TextBlockV(conv.BlockText, p, conv.NoText))
		return
	}
	if first {
		w.summary = conv.GeminiSummaryText(f.Text)
	}
	w.prefix.addOf(p, &f)
	w.parts.add(conv.GeminiPartBlockOf(p, f, conv.NoText))
}

// model adds up a gemini message: the model's message (its thoughts, content and calls, or its
// content alone when that holds a call or a thought), then the message of its calls' results.
func (w *geminiCount) model(p *Pre) {
	var model geminiTally
	if geminiModelContent(w.content) != "" {
		model = w.parts
	}
	if model.calls == 0 && model.thinking == 0 {
		all := w.thoughts
		all.then(model)
		all.then(w.calls)
		model = all
	}
	if model.blocks == 0 {
		return
	}
	p.push(&model, conv.RoleAssistant)
	if w.results.blocks > 0 {
		p.push(&w.results, conv.RoleUser)
	}
}

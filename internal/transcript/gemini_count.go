package transcript

import (
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// The walk of a Gemini CLI message record for the statistics. Statistics count a session's
// message records one by one (the range workers walk each ahead of the reader), and building
// each record's messages only to count them cost more than the walk itself: blocks allocated per
// part, and the collector running under ctxc's soft memory limit. So the walk adds the blocks up
// as it makes them (geminiTally), with the same functions that make them for a load
// (geminiPartBlock, geminiThought, toolCallBlockV, geminiEachResultBlock) and the same rules
// for which messages a record yields (geminiRecordMessages): the figures are the messages' by
// construction, and TestGeminiCountsMatchMessages holds the two to it.

// geminiTally is what a message's blocks add up to, in their order, as the statistics see them:
// Message's Chars, Images, ToolCalls and ToolResults, statsRole's rule and dominantKind.
type geminiTally struct {
	blocks, calls, results, thinking, images int32
	chars                                    int64
	kind                                     BlockKind // the first block with the most chars
	best                                     int64     // that block's chars plus one; 0 before any block
}

// add adds block b after the blocks already added.
func (t *geminiTally) add(b Block) {
	t.blocks++
	switch b.Kind {
	case BlockToolCall:
		t.calls++
	case BlockToolResult:
		t.results++
	case BlockThinking:
		t.thinking++
	case BlockImage:
		t.images++
	}
	t.images += int32(b.Images)
	t.chars += int64(b.Chars)
	c := int64(b.Chars)
	if b.Kind == BlockImage {
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
func (t *geminiTally) role(r Role) Role {
	if t.blocks > 0 && t.results == t.blocks {
		return RoleTool
	}
	return r
}

// tokens is Message.Tokens.
func (t *geminiTally) tokens() int32 {
	return int32(estimate.FromChars(int(t.chars)) + int(t.images)*estimate.ImageTokens)
}

// push records the message of blocks t (role r) as the record's next message.
func (p *geminiPre) push(t *geminiTally, r Role) {
	c := &p.c
	c.roles[c.n], c.tokens[c.n], c.kinds[c.n] = geminiRoleIndex(t.role(r)), t.tokens(), uint8(t.kind)
	c.n++
	c.calls += t.calls
	c.results += t.results
	c.images += t.images
	c.chars += t.chars
}

// geminiWalk reads a message record into p: what the messages geminiRecordMessages yields
// count, and the response's usage.
func geminiWalk(p *geminiPre, f geminiFields) {
	*p = geminiPre{key: geminiKey(f.id.Str())}
	typ := f.typ.Str()
	switch typ {
	case "user":
		t, ignored, summary := geminiCountUser(f.content)
		if !ignored {
			p.push(&t, RoleUser)
			p.summary = summary
		}
	case "gemini":
		geminiCountModel(p, f)
	}
	if typ == "gemini" && f.tokens.IsObject() {
		p.hasUsage, p.usage = true, geminiUsage(f.tokens)
	}
}

// geminiCountUser adds up a user message's parts (geminiContentMessage), in the same walk as
// the start of its text (geminiContentPrefix: Gemini CLI does not send it back when ignored)
// and its first part (geminiSummaryPart).
func geminiCountUser(content jsonl.Value) (t geminiTally, ignored, summary bool) {
	var prefix geminiPrefix
	first := true
	geminiEachPart(content, func(p jsonl.Value) {
		if first {
			summary, first = geminiSummaryPart(p), false
		}
		prefix.add(p)
		t.add(geminiPartBlock(p, noText))
	})
	return t, geminiIgnoredUser(prefix.String()), summary
}

// geminiCountModel adds up a gemini message (geminiModelMessages): the model's message (its
// thoughts, content and calls, or its content alone when that holds a call or a thought), then
// the message of its calls' results. The tool calls are walked once, for both.
func geminiCountModel(p *geminiPre, f geminiFields) {
	var model, calls, results geminiTally
	geminiEachPart(geminiModelContent(f.content), func(part jsonl.Value) {
		model.add(geminiPartBlock(part, noText))
	})
	f.toolCalls.Each(func(_ string, tc jsonl.Value) bool {
		c := geminiCallOf(tc)
		calls.add(toolCallBlockV("", c.name.Str(), c.args, noText))
		geminiEachResultBlock(c, noText, results.add)
		return true
	})
	if model.calls == 0 && model.thinking == 0 {
		var all geminiTally
		f.thoughts.Each(func(_ string, t jsonl.Value) bool {
			all.add(geminiThought(t, noText))
			return true
		})
		all.then(model)
		all.then(calls)
		model = all
	}
	if model.blocks == 0 {
		return
	}
	p.push(&model, RoleAssistant)
	if results.blocks > 0 {
		p.push(&results, RoleUser)
	}
}

package conv

import (
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The parsers of the two wire shapes that several formats embed: OpenAI chat messages and
// Anthropic Messages API messages. With text=false they only count (stats); with text=true they
// also copy out the text (load, compact).

// OpaqueBlockV is a block ctxc keeps but does not read (its JSON as its text, counted as none).
func OpaqueBlockV(v jsonl.Value, text TextMode) Block {
	b := Block{Kind: BlockOpaque}
	if text.On() {
		b.Text = string(v)
	}
	return b
}

// OpenAIMessage reads one OpenAI chat message.
func OpenAIMessage(msg jsonl.Value, text TextMode) Message {
	m := Message{Dialect: DialectOpenAI}
	var content, reasoning, refusal, toolCalls, functionCall jsonl.Value
	var callID, name string
	msg.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "role":
			m.Role = Role(v.Str())
		case "content":
			content = v
		case "reasoning_content":
			reasoning = v
		case "refusal":
			refusal = v
		case "tool_calls":
			toolCalls = v
		case "function_call":
			functionCall = v
		case "tool_call_id":
			callID = v.Str()
		case "name":
			name = v.Str()
		}
		return true
	})
	switch m.Role {
	case "function": // legacy function-call result
		m.Role = RoleTool
		b := ContentResultV(content, text)
		b.Name = name
		m.Blocks = append(m.Blocks, b)
		return m
	case RoleTool:
		b := ContentResultV(content, text)
		b.ID, b.Name = callID, name
		m.Blocks = append(m.Blocks, b)
		return m
	}
	if reasoning.Exists() && !reasoning.IsNull() {
		m.Blocks = append(m.Blocks, TextBlockV(BlockThinking, reasoning, text))
	}
	if content.IsArray() {
		content.Each(func(_ string, p jsonl.Value) bool {
			switch p.Get("type").Str() {
			case "text", "input_text", "output_text":
				m.Blocks = append(m.Blocks, TextBlockV(BlockText, p.Get("text"), text))
			case "refusal":
				m.Blocks = append(m.Blocks, TextBlockV(BlockText, p.Get("refusal"), text))
			case "image_url", "input_image":
				b := Block{Kind: BlockImage}
				if text.On() {
					b.Text = string(p)
				}
				m.Blocks = append(m.Blocks, b)
			default:
				m.Blocks = append(m.Blocks, OpaqueBlockV(p, text))
			}
			return true
		})
	} else if content.Exists() && !content.IsNull() {
		m.Blocks = append(m.Blocks, TextBlockV(BlockText, content, text))
	}
	if refusal.IsString() {
		m.Blocks = append(m.Blocks, TextBlockV(BlockText, refusal, text))
	}
	toolCalls.Each(func(_ string, tc jsonl.Value) bool {
		fn := tc.Get("function")
		m.Blocks = append(m.Blocks, ToolCallBlockV(tc.Get("id").Str(), fn.Get("name").Str(), fn.Get("arguments"), text))
		return true
	})
	if functionCall.IsObject() {
		m.Blocks = append(m.Blocks, ToolCallBlockV("", functionCall.Get("name").Str(), functionCall.Get("arguments"), text))
	}
	return m
}

// ContentResultV reads tool-result content that is a string or an array of text/image parts.
func ContentResultV(c jsonl.Value, text TextMode) Block {
	b := Block{Kind: BlockToolResult}
	if !c.IsArray() {
		b.Chars = text.Count(c)
		switch {
		case text == WindowedText && c.IsString() && len(c) > 3*ToolTextWindow:
			windowed(&b, c)
		case text.On():
			b.Text = c.Text()
		}
		return b
	}
	var parts []string
	c.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "image", "image_url", "input_image":
			b.Images++
		case "text", "input_text", "output_text":
			t := p.Get("text")
			b.Chars += text.Count(t)
			if text.On() {
				parts = append(parts, t.Str())
			}
		default:
			b.Chars += text.Count(p)
			if text.On() {
				parts = append(parts, string(p))
			}
		}
		return true
	})
	if text.On() {
		b.Text = JoinLines(parts)
	}
	return b
}

// JoinLines joins parts with newlines.
func JoinLines(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	buf := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, p...)
	}
	return string(buf)
}

// AnthropicMessage reads one Anthropic Messages API message (also Claude Code's "message").
func AnthropicMessage(msg jsonl.Value, text TextMode) Message {
	m, _ := AnthropicMessageAt(msg, text)
	return m
}

// AnthropicMessageAt reads the message that starts at v (v may run on past it) and returns its
// length too: Claude Code's reader parses it in the same walk over the line.
func AnthropicMessageAt(v jsonl.Value, text TextMode) (Message, int) {
	m := Message{Dialect: DialectAnthropic}
	n := v.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "role", "id":
			val, n := rest.Prefix()
			if k == "role" {
				m.Role = Role(val.Str())
			} else {
				m.MsgID = val.Str()
			}
			return n
		case "content":
			if rest.IsArray() {
				return rest.Walk(func(_ string, b jsonl.Value) int {
					blk, n := anthropicBlockAt(b, text)
					m.Blocks = append(m.Blocks, blk)
					return n
				})
			}
			val, n := rest.Prefix()
			if val.Exists() && !val.IsNull() {
				m.Blocks = append(m.Blocks, TextBlockV(BlockText, val, text))
			}
			return n
		}
		return -1
	})
	return m, n
}

// anthropicBlockAt reads the content block that starts at v and returns its length.
func anthropicBlockAt(v jsonl.Value, text TextMode) (Block, int) {
	if !v.IsObject() {
		val, n := v.Prefix()
		return OpaqueBlockV(val, text), n
	}
	var typ, id, name, useID string
	var textV, thinking, input, content jsonl.Value
	var isError bool
	n := v.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "type", "text", "thinking", "id", "name", "input", "content", "tool_use_id", "is_error":
		default:
			return -1 // signature, cache_control, citations...: skipped
		}
		val, n := rest.Prefix()
		switch k {
		case "type":
			typ = val.Str()
		case "text":
			textV = val
		case "thinking":
			thinking = val
		case "id":
			id = val.Str()
		case "name":
			name = val.Str()
		case "input":
			input = val
		case "content":
			content = val
		case "tool_use_id":
			useID = val.Str()
		case "is_error":
			isError = val.Bool()
		}
		return n
	})
	switch typ {
	case "text":
		return TextBlockV(BlockText, textV, text), n
	case "thinking":
		// The signature is opaque and never counted (docs/design.md §4), but kept with the block
		// so that it can be replayed.
		b := TextBlockV(BlockThinking, thinking, text)
		if text.On() {
			b.Verbatim = strings.Clone(string(v[:n]))
		}
		return b, n
	case "tool_use", "server_tool_use":
		return ToolCallBlockV(id, name, input, text), n
	case "tool_result", "web_search_tool_result":
		r := ContentResultV(content, text)
		r.ID = useID
		r.IsError = isError
		return r, n
	case "image":
		bl := Block{Kind: BlockImage}
		if text.On() {
			bl.Text = string(v[:n])
		}
		return bl, n
	case "compaction":
		return TextBlockV(BlockText, content, text), n
	}
	return OpaqueBlockV(v[:n], text), n // redacted_thinking, document, unknown: kept, not counted
}

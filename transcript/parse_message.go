package transcript

import (
	"unicode/utf8"

	"github.com/ctxc/ctxc/estimate"
	"github.com/tidwall/gjson"
)

// Shared parsers for the two wire shapes that several formats embed: OpenAI chat messages and
// Anthropic Messages API messages. With text=false they only count (stats); with text=true they
// also copy out the text (load, compact).

// strChars counts the code points of a JSON value as the model sees it: a string's decoded text,
// anything else its raw JSON.
func strChars(v gjson.Result) int {
	switch v.Type {
	case gjson.String:
		return estimate.JSONStringChars(v.Raw)
	case gjson.Null:
		return 0
	}
	if !v.Exists() {
		return 0
	}
	return utf8.RuneCountInString(v.Raw)
}

// valueText is the text of a value: a string's content, anything else its raw JSON.
func valueText(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.String()
	}
	if v.Type == gjson.Null || !v.Exists() {
		return ""
	}
	return v.Raw
}

func textBlock(kind BlockKind, v gjson.Result, text bool) Block {
	b := Block{Kind: kind, Chars: strChars(v)}
	if text {
		b.Text = valueText(v)
	}
	return b
}

func toolCallBlock(id, name string, args gjson.Result, text bool) Block {
	b := Block{Kind: BlockToolCall, ID: id, Name: name, Chars: utf8.RuneCountInString(name) + strChars(args)}
	if text {
		b.Args = valueText(args)
		if b.Args == "" {
			b.Args = "{}"
		}
	}
	return b
}

func opaqueBlock(v gjson.Result, text bool) Block {
	b := Block{Kind: BlockOpaque}
	if text {
		b.Text = v.Raw
	}
	return b
}

// parseOpenAIMessage reads one OpenAI chat message.
func parseOpenAIMessage(msg gjson.Result, text bool) Message {
	m := Message{Role: Role(msg.Get("role").String()), Dialect: DialectOpenAI}
	switch m.Role {
	case "function": // legacy function-call result
		m.Role = RoleTool
		b := textBlock(BlockToolResult, msg.Get("content"), text)
		b.Name = msg.Get("name").String()
		m.Blocks = append(m.Blocks, b)
		return m
	case RoleTool:
		b := contentResult(msg.Get("content"), text)
		b.ID = msg.Get("tool_call_id").String()
		b.Name = msg.Get("name").String()
		m.Blocks = append(m.Blocks, b)
		return m
	}
	if rc := msg.Get("reasoning_content"); rc.Exists() && rc.Type != gjson.Null {
		m.Blocks = append(m.Blocks, textBlock(BlockThinking, rc, text))
	}
	content := msg.Get("content")
	if content.IsArray() {
		content.ForEach(func(_, p gjson.Result) bool {
			switch p.Get("type").String() {
			case "text", "input_text", "output_text":
				m.Blocks = append(m.Blocks, textBlock(BlockText, p.Get("text"), text))
			case "refusal":
				m.Blocks = append(m.Blocks, textBlock(BlockText, p.Get("refusal"), text))
			case "image_url", "input_image":
				b := Block{Kind: BlockImage}
				if text {
					b.Text = p.Raw
				}
				m.Blocks = append(m.Blocks, b)
			default:
				m.Blocks = append(m.Blocks, opaqueBlock(p, text))
			}
			return true
		})
	} else if content.Exists() && content.Type != gjson.Null {
		m.Blocks = append(m.Blocks, textBlock(BlockText, content, text))
	}
	if r := msg.Get("refusal"); r.Type == gjson.String {
		m.Blocks = append(m.Blocks, textBlock(BlockText, r, text))
	}
	msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		fn := tc.Get("function")
		m.Blocks = append(m.Blocks, toolCallBlock(tc.Get("id").String(), fn.Get("name").String(), fn.Get("arguments"), text))
		return true
	})
	if fc := msg.Get("function_call"); fc.IsObject() {
		m.Blocks = append(m.Blocks, toolCallBlock("", fc.Get("name").String(), fc.Get("arguments"), text))
	}
	return m
}

// contentResult reads tool-result content that is a string or an array of text/image parts.
func contentResult(c gjson.Result, text bool) Block {
	b := Block{Kind: BlockToolResult}
	if !c.IsArray() {
		b.Chars = strChars(c)
		if text {
			b.Text = valueText(c)
		}
		return b
	}
	var parts []string
	c.ForEach(func(_, p gjson.Result) bool {
		switch p.Get("type").String() {
		case "image", "image_url", "input_image":
			b.Images++
		case "text", "input_text", "output_text":
			t := p.Get("text")
			b.Chars += strChars(t)
			if text {
				parts = append(parts, t.String())
			}
		default:
			b.Chars += strChars(p)
			if text {
				parts = append(parts, p.Raw)
			}
		}
		return true
	})
	if text {
		b.Text = joinLines(parts)
	}
	return b
}

func joinLines(parts []string) string {
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

// parseAnthropicMessage reads one Anthropic Messages API message (also Claude Code's "message").
func parseAnthropicMessage(msg gjson.Result, text bool) Message {
	m := Message{Role: Role(msg.Get("role").String()), Dialect: DialectAnthropic}
	content := msg.Get("content")
	if !content.IsArray() {
		if content.Exists() && content.Type != gjson.Null {
			m.Blocks = append(m.Blocks, textBlock(BlockText, content, text))
		}
		return m
	}
	content.ForEach(func(_, b gjson.Result) bool {
		m.Blocks = append(m.Blocks, anthropicBlock(b, text))
		return true
	})
	return m
}

func anthropicBlock(b gjson.Result, text bool) Block {
	switch b.Get("type").String() {
	case "text":
		return textBlock(BlockText, b.Get("text"), text)
	case "thinking":
		// The signature is opaque and never counted (design.md §4).
		return textBlock(BlockThinking, b.Get("thinking"), text)
	case "tool_use", "server_tool_use":
		return toolCallBlock(b.Get("id").String(), b.Get("name").String(), b.Get("input"), text)
	case "tool_result", "web_search_tool_result":
		r := contentResult(b.Get("content"), text)
		r.ID = b.Get("tool_use_id").String()
		r.IsError = b.Get("is_error").Bool()
		return r
	case "image":
		bl := Block{Kind: BlockImage}
		if text {
			bl.Text = b.Raw
		}
		return bl
	case "compaction":
		return textBlock(BlockText, b.Get("content"), text)
	}
	return opaqueBlock(b, text) // redacted_thinking, document, unknown: kept, not counted
}

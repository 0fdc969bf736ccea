package transcript

import (
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The Gemini API's Content and Part, which Gemini CLI and Qwen Code (a fork of it) both keep in
// their session files: a content is {"role":"user"|"model","parts":[...]}, a part one of
// {"text"} (with "thought":true a thinking summary), {"functionCall":{"id","name","args"}},
// {"functionResponse":{"id","name","response"}}, {"inlineData"}, {"fileData"} and a few more.

// geminiPartFields are the members of a part the readers use.
type geminiPartFields struct {
	text, thought, call, response, inline jsonl.Value
}

func geminiPartOf(p jsonl.Value) geminiPartFields {
	var f geminiPartFields
	p.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "text":
			f.text = v
		case "thought":
			f.thought = v
		case "functionCall":
			f.call = v
		case "functionResponse":
			f.response = v
		case "inlineData":
			f.inline = v
		}
		return true
	})
	return f
}

// geminiEachPart calls fn for each part of a content: a string is one text part, an array its
// elements (a string element being a text part), an object one part (Gemini CLI's
// ensurePartArray). fn gets a string part as its JSON string.
func geminiEachPart(c jsonl.Value, fn func(p jsonl.Value)) {
	switch {
	case c.IsString():
		fn(c)
	case c.IsArray():
		c.Each(func(_ string, p jsonl.Value) bool {
			fn(p)
			return true
		})
	case c.IsObject():
		fn(c)
	}
}

// geminiPartBlock turns one part into a block.
func geminiPartBlock(p jsonl.Value, text textMode) Block {
	if p.IsString() {
		return textBlockV(BlockText, p, text)
	}
	f := geminiPartOf(p)
	switch {
	case f.call.IsObject():
		var id, name, args jsonl.Value
		f.call.Each(func(k string, v jsonl.Value) bool {
			switch k {
			case "id":
				id = v
			case "name":
				name = v
			case "args":
				args = v
			}
			return true
		})
		return toolCallBlockV(id.Str(), name.Str(), args, text)
	case f.response.IsObject():
		return geminiResponseBlock(f.response, text)
	case f.text.IsString():
		if f.thought.Bool() {
			return textBlockV(BlockThinking, f.text, text)
		}
		return textBlockV(BlockText, f.text, text)
	case f.inline.IsObject():
		b := Block{Kind: BlockImage}
		if text.on() {
			b.Text = string(p)
		}
		return b
	}
	return opaqueBlockV(p, text)
}

// geminiResponseBlock is a functionResponse: its response's "output" (or "error") string is the
// result's text, any other response its JSON.
func geminiResponseBlock(r jsonl.Value, text textMode) Block {
	var id, name, resp jsonl.Value
	r.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "id":
			id = v
		case "name":
			name = v
		case "response":
			resp = v
		}
		return true
	})
	out, isErr := resp, false
	if resp.IsObject() {
		var o, e jsonl.Value
		resp.Each(func(k string, v jsonl.Value) bool {
			switch k {
			case "output":
				if o == "" {
					o = v
				}
			case "error":
				if e == "" {
					e = v
				}
			}
			return true
		})
		if o.IsString() {
			out = o
		} else if e.Exists() {
			out, isErr = e, true
		}
	}
	b := contentResultV(out, text)
	b.ID, b.Name, b.IsError = id.Str(), name.Str(), isErr
	return b
}

// geminiContentMessage is a message of parts; role "model" is the assistant, and a user
// message made only of function responses is a tool message.
func geminiContentMessage(role string, parts jsonl.Value, text textMode) Message {
	m := Message{Role: RoleUser}
	if role == "model" {
		m.Role = RoleAssistant
	}
	geminiEachPart(parts, func(p jsonl.Value) {
		m.Blocks = append(m.Blocks, geminiPartBlock(p, text))
	})
	if m.Role == RoleUser && len(m.Blocks) > 0 && m.ToolResults() == len(m.Blocks) {
		m.Role = RoleTool
	}
	return m
}

// geminiSummaryParts: the parts open a compression summary of Gemini CLI or Qwen Code (their
// prompts ask for a <state_snapshot>) or one ctxc wrote.
func geminiSummaryParts(parts jsonl.Value) bool {
	var first jsonl.Value
	geminiEachPart(parts, func(p jsonl.Value) {
		if first == "" {
			first = p
		}
	})
	return geminiSummaryPart(first)
}

// geminiSummaryPart: a content's first part opens a compression summary.
func geminiSummaryPart(first jsonl.Value) bool {
	if !first.IsString() {
		first = geminiPartOf(first).text
	}
	t := strings.TrimSpace(valuePrefix(first, 256))
	return strings.HasPrefix(t, "<state_snapshot>") || strings.HasPrefix(t, strings.TrimSpace(SummaryPreamble)[:20])
}

// valuePrefix decodes about the first n bytes of a string value (an escape cut at the end is
// kept as written).
func valuePrefix(v jsonl.Value, n int) string {
	if !v.IsString() || len(v) < 2 {
		return ""
	}
	inner := string(v[1 : len(v)-1])
	if len(inner) > n {
		inner = inner[:n]
	}
	if strings.IndexByte(inner, '\\') < 0 {
		return inner // nothing to decode
	}
	return jsonl.Unescape(inner)
}

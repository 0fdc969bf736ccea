package transcript

import (
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
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
	_, f, _ := geminiPartAt(p)
	return f
}

// geminiPartAt reads the part that starts at rest (which may go on past it) in one walk: the
// part, its members when it is an object (as geminiPartOf reads them), and its length.
func geminiPartAt(rest jsonl.Value) (jsonl.Value, geminiPartFields, int) {
	var f geminiPartFields
	if !rest.IsObject() {
		p, n := rest.Prefix()
		return p, f, n
	}
	n := rest.Walk(func(k string, v jsonl.Value) int {
		var dst *jsonl.Value
		switch k {
		case "text":
			dst = &f.text
		case "thought":
			dst = &f.thought
		case "functionCall":
			dst = &f.call
		case "functionResponse":
			dst = &f.response
		case "inlineData":
			dst = &f.inline
		default:
			return -1
		}
		val, n := v.Prefix()
		*dst = val
		return n
	})
	return rest[:n], f, n
}

// geminiPartsAt calls fn with each part of the content that starts at rest (geminiEachPart's
// parts, each with its members) in one walk, and returns the content's length.
func geminiPartsAt(rest jsonl.Value, fn func(p jsonl.Value, f geminiPartFields)) int {
	if rest.IsArray() {
		return rest.Walk(func(_ string, r jsonl.Value) int {
			p, f, n := geminiPartAt(r)
			fn(p, f)
			return n
		})
	}
	p, f, n := geminiPartAt(rest)
	if p.IsString() || p.IsObject() {
		fn(p, f)
	}
	return n
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
		return conv.TextBlockV(BlockText, p, text)
	}
	return geminiPartBlockOf(p, geminiPartOf(p), text)
}

// geminiPartBlockAt is geminiPartBlock for a part read by geminiPartAt.
func geminiPartBlockAt(p jsonl.Value, f geminiPartFields, text textMode) Block {
	if p.IsString() {
		return conv.TextBlockV(BlockText, p, text)
	}
	return geminiPartBlockOf(p, f, text)
}

// geminiPartBlockOf is geminiPartBlock for a part that is not a string, whose members are f.
func geminiPartBlockOf(p jsonl.Value, f geminiPartFields, text textMode) Block {
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
		return conv.ToolCallBlockV(id.Str(), name.Str(), args, text)
	case f.response.IsObject():
		return geminiResponseBlock(f.response, text)
	case f.text.IsString():
		if f.thought.Bool() {
			return conv.TextBlockV(BlockThinking, f.text, text)
		}
		return conv.TextBlockV(BlockText, f.text, text)
	case f.inline.IsObject():
		b := Block{Kind: BlockImage}
		if text.On() {
			b.Text = string(p)
		}
		return b
	}
	return conv.OpaqueBlockV(p, text)
}

// geminiResponseBlock is a functionResponse: its response's "output" (or "error") string is the
// result's text, any other response its JSON.
func geminiResponseBlock(r jsonl.Value, text textMode) Block {
	var id, name, resp, o, e jsonl.Value
	r.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "id", "name":
			v, n := rest.Prefix()
			if k == "id" {
				id = v
			} else {
				name = v
			}
			return n
		case "response":
			o, e = "", "" // the last response counts, and in it the first output and error
			n := rest.Walk(func(k string, rest jsonl.Value) int {
				if (k == "output" && o == "") || (k == "error" && e == "") {
					v, n := rest.Prefix()
					if k == "output" {
						o = v
					} else {
						e = v
					}
					return n
				}
				return -1
			})
			resp = rest[:n]
			return n
		}
		return -1
	})
	out, isErr := resp, false
	if o.IsString() {
		out = o
	} else if e.Exists() {
		out, isErr = e, true
	}
	b := conv.ContentResultV(out, text)
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
	if first.IsString() {
		return geminiSummaryText(first)
	}
	return geminiSummaryText(geminiPartOf(first).text)
}

// geminiSummaryText: a content's first text (its first part, or that part's "text") opens a
// compression summary.
func geminiSummaryText(first jsonl.Value) bool {
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

package conv

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The Gemini API's Content and Part, which Gemini CLI and Qwen Code (a fork of it) both keep in
// their session files: a content is {"role":"user"|"model","parts":[...]}, a part one of
// {"text"} (with "thought":true a thinking summary), {"functionCall":{"id","name","args"}},
// {"functionResponse":{"id","name","response"}}, {"inlineData"}, {"fileData"} and a few more.

// GeminiPart is the members of a Gemini API part that the readers use.
type GeminiPart struct {
	Text, Thought, Call, Response, Inline jsonl.Value
}

// GeminiPartOf reads the members of part p.
func GeminiPartOf(p jsonl.Value) GeminiPart {
	_, f, _ := GeminiPartAt(p)
	return f
}

// GeminiPartAt reads the part that starts at rest (which may go on past it) in one walk: the
// part, its members when it is an object (as GeminiPartOf reads them), and its length.
func GeminiPartAt(rest jsonl.Value) (jsonl.Value, GeminiPart, int) {
	var f GeminiPart
	if !rest.IsObject() {
		p, n := rest.Prefix()
		return p, f, n
	}
	n := rest.Walk(func(k string, v jsonl.Value) int {
		var dst *jsonl.Value
		switch k {
		case "text":
			dst = &f.Text
		case "thought":
			dst = &f.Thought
		case "functionCall":
			dst = &f.Call
		case "functionResponse":
			dst = &f.Response
		case "inlineData":
			dst = &f.Inline
		default:
			return -1
		}
		val, n := v.Prefix()
		*dst = val
		return n
	})
	return rest[:n], f, n
}

// GeminiPartsAt calls fn with each part of the content that starts at rest (GeminiEachPart's
// parts, each with its members) in one walk, and returns the content's length.
func GeminiPartsAt(rest jsonl.Value, fn func(p jsonl.Value, f GeminiPart)) int {
	if rest.IsArray() {
		return rest.Walk(func(_ string, r jsonl.Value) int {
			p, f, n := GeminiPartAt(r)
			fn(p, f)
			return n
		})
	}
	p, f, n := GeminiPartAt(rest)
	if p.IsString() || p.IsObject() {
		fn(p, f)
	}
	return n
}

// GeminiEachPart calls fn for each part of a content: a string is one text part, an array its
// elements (a string element being a text part), an object one part (Gemini CLI's
// ensurePartArray). fn gets a string part as its JSON string.
func GeminiEachPart(c jsonl.Value, fn func(p jsonl.Value)) {
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

// GeminiPartBlock turns one part into a block.
func GeminiPartBlock(p jsonl.Value, text TextMode) Block {
	if p.IsString() {
		return TextBlockV(BlockText, p, text)
	}
	return GeminiPartBlockOf(p, GeminiPartOf(p), text)
}

// GeminiPartBlockAt is GeminiPartBlock for a part read by GeminiPartAt.
func GeminiPartBlockAt(p jsonl.Value, f GeminiPart, text TextMode) Block {
	if p.IsString() {
		return TextBlockV(BlockText, p, text)
	}
	return GeminiPartBlockOf(p, f, text)
}

// GeminiPartBlockOf is GeminiPartBlock for a part that is not a string, whose members are f.
func GeminiPartBlockOf(p jsonl.Value, f GeminiPart, text TextMode) Block {
	switch {
	case f.Call.IsObject():
		var id, name, args jsonl.Value
		f.Call.Each(func(k string, v jsonl.Value) bool {
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
		return ToolCallBlockV(id.Str(), name.Str(), args, text)
	case f.Response.IsObject():
		return geminiResponseBlock(f.Response, text)
	case f.Text.IsString():
		if f.Thought.Bool() {
			return TextBlockV(BlockThinking, f.Text, text)
		}
		return TextBlockV(BlockText, f.Text, text)
	case f.Inline.IsObject():
		b := Block{Kind: BlockImage}
		if text.On() {
			b.Text = string(p)
		}
		return b
	}
	return OpaqueBlockV(p, text)
}

// geminiResponseBlock is a functionResponse: its response's "output" (or "error") string is the
// result's text, any other response its JSON.
func geminiResponseBlock(r jsonl.Value, text TextMode) Block {
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
	b := ContentResultV(out, text)
	b.ID, b.Name, b.IsError = id.Str(), name.Str(), isErr
	return b
}

// GeminiContentMessage is a message of parts; role "model" is the assistant, and a user
// message made only of function responses is a tool message.
func GeminiContentMessage(role string, parts jsonl.Value, text TextMode) Message {
	m := Message{Role: RoleUser}
	if role == "model" {
		m.Role = RoleAssistant
	}
	GeminiEachPart(parts, func(p jsonl.Value) {
		m.Blocks = append(m.Blocks, GeminiPartBlock(p, text))
	})
	if m.Role == RoleUser && len(m.Blocks) > 0 && m.ToolResults() == len(m.Blocks) {
		m.Role = RoleTool
	}
	return m
}

// GeminiSummaryParts: the parts open a compression summary of Gemini CLI or Qwen Code (their
// prompts ask for a <state_snapshot>) or one ctxc wrote.
func GeminiSummaryParts(parts jsonl.Value) bool {
	var first jsonl.Value
	GeminiEachPart(parts, func(p jsonl.Value) {
		if first == "" {
			first = p
		}
	})
	if first.IsString() {
		return GeminiSummaryText(first)
	}
	return GeminiSummaryText(GeminiPartOf(first).Text)
}

// GeminiSummaryText: a content's first text (its first part, or that part's "text") opens a
// compression summary.
func GeminiSummaryText(first jsonl.Value) bool {
	t := strings.TrimSpace(ValuePrefix(first, 256))
	return strings.HasPrefix(t, "<state_snapshot>") || strings.HasPrefix(t, strings.TrimSpace(SummaryPreamble)[:20])
}

// ValuePrefix decodes about the first n bytes of a string value (an escape cut at the end is
// kept as written).
func ValuePrefix(v jsonl.Value, n int) string {
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

// GeminiParts renders a message's blocks as Gemini API parts.
func GeminiParts(m *Message, role string) ([]any, error) {
	var parts []any
	for i := range m.Blocks {
		b := &m.Blocks[i]
		switch b.Kind {
		case BlockText:
			parts = append(parts, map[string]any{"text": b.Text})
		case BlockThinking:
			if role == "model" {
				parts = append(parts, map[string]any{"text": b.Text, "thought": true})
			}
		case BlockToolCall:
			args := json.RawMessage(b.Args)
			if !jsonl.Valid(args) || !strings.HasPrefix(strings.TrimSpace(b.Args), "{") {
				args = json.RawMessage("{}")
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"id": b.ID, "name": b.Name, "args": args}})
		case BlockToolResult:
			key := "output"
			if b.IsError {
				key = "error"
			}
			parts = append(parts, map[string]any{"functionResponse": map[string]any{"id": b.ID, "name": b.Name,
				"response": map[string]any{key: b.Text}}})
		default: // images and other parts: their JSON as written
			if strings.HasPrefix(b.Text, "{") && jsonl.Valid([]byte(b.Text)) {
				parts = append(parts, json.RawMessage(b.Text))
			}
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("a %s message with nothing Gemini can hold (line %d)", m.Role, m.Line)
	}
	return parts, nil
}

package codex

import (
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// codexFields are the fields of a response item the reader uses, found in one pass.
type codexFields struct {
	typ, role, content, summary, callID, id, name, arguments, input, action, output jsonl.Value
}

// codexItemMessage turns one response item into a message (no blocks: not a message).
func codexItemMessage(it jsonl.Value, text conv.TextMode) (conv.Message, codexKind) {
	f := codexItemFields(it)
	switch typ := f.typ.Str(); typ {
	case "message":
		return codexMessageItem(it, &f, text)
	case "reasoning":
		return codexReasoning(&f, text), cxAsst
	case "function_call":
		return codexToolCall(f.callIDOrID(), f.name.Str(), f.arguments, text), cxAsst
	case "custom_tool_call":
		return codexToolCall(f.callIDOrID(), f.name.Str(), f.input, text), cxAsst
	case "local_shell_call":
		return codexToolCall(f.callIDOrID(), "local_shell", f.action, text), cxAsst
	case "web_search_call":
		return codexWebSearch(f.action, text), cxAsst
	case "compaction", "compaction_summary":
		return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{conv.OpaqueBlockV(it, text)}}, cxOther
	case "ghost_snapshot":
		return conv.Message{}, cxOther
	default:
		return codexCallItem(typ, &f, text)
	}
}

// codexItemFields finds the fields of a response item in one pass over it: items can be
// megabytes long (tool outputs), and each field is looked up once.
func codexItemFields(it jsonl.Value) codexFields {
	var f codexFields
	it.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "type":
			f.typ = v
		case "role":
			f.role = v
		case "content":
			f.content = v
		case "summary":
			f.summary = v
		case "call_id":
			f.callID = v
		case "id":
			f.id = v
		case "name":
			f.name = v
		case "arguments":
			f.arguments = v
		case "input":
			f.input = v
		case "action":
			f.action = v
		case "output":
			f.output = v
		}
		return true
	})
	return f
}

// callIDOrID is the id that pairs a tool call with its output: call_id, or the item's id in
// rollouts whose calls have none.
func (f *codexFields) callIDOrID() string {
	if !f.callID.Exists() {
		return f.id.Str()
	}
	return f.callID.Str()
}

// codexMessageItem reads a message item. A user message is a real one (a turn the user typed,
// which rollbacks and legacy compactions count) unless it is injected context or a summary
// kept in a replacement_history (ctxc's or Codex's own).
func codexMessageItem(it jsonl.Value, f *codexFields, text conv.TextMode) (conv.Message, codexKind) {
	m := conv.OpenAIMessage(it, text)
	m.Dialect = conv.DialectNone
	kind := cxOther
	switch m.Role {
	case conv.RoleAssistant:
		kind = cxAsst
	case conv.RoleUser:
		if codexSummaryItem(f.content) {
			m.Summary = true
		} else if codexRealUser(f.content) {
			kind = cxUser
		}
	}
	return m, kind
}

// codexReasoning reads a reasoning item as assistant thinking: its readable summary texts,
// then its raw reasoning texts (open models; null for OpenAI), never the encrypted content.
func codexReasoning(f *codexFields, text conv.TextMode) conv.Message {
	m := conv.Message{Role: conv.RoleAssistant}
	thinking := func(_ string, p jsonl.Value) bool {
		if t := p.Get("text"); t.IsString() && t != `""` {
			m.Blocks = append(m.Blocks, conv.TextBlockV(conv.BlockThinking, t, text))
		}
		return true
	}
	f.summary.Each(thinking)
	f.content.Each(thinking)
	return m
}

// codexToolCall is an assistant message of one tool call.
func codexToolCall(callID, name string, args jsonl.Value, text conv.TextMode) conv.Message {
	return conv.Message{Role: conv.RoleAssistant, Blocks: []conv.Block{conv.ToolCallBlockV(callID, name, args, text)}}
}

// codexWebSearch reads a web_search_call: a server-side tool, for which no output item follows,
// so it is an opaque block counting its action rather than a tool call that needs a result.
func codexWebSearch(action jsonl.Value, text conv.TextMode) conv.Message {
	b := conv.Block{Kind: conv.BlockOpaque, Chars: action.Chars()}
	if text.On() {
		b.Text = string(action)
	}
	return conv.Message{Role: conv.RoleAssistant, Blocks: []conv.Block{b}}
}

// codexCallItem reads an item of a type the reader does not name (Codex adds tool kinds) by
// its shape: with a call_id, an output (or a type ending in _output) makes it a tool result,
// and arguments or an input make it a tool call; anything else is no message.
func codexCallItem(typ string, f *codexFields, text conv.TextMode) (conv.Message, codexKind) {
	if !f.callID.Exists() {
		return conv.Message{}, cxOther
	}
	callID := f.callID.Str()
	if f.output.Exists() || strings.HasSuffix(typ, "_output") {
		return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{codexOutput(f.output, callID, text)}}, cxOther
	}
	if args := codexArgs(f); args.Exists() {
		return codexToolCall(callID, f.name.Str(), args, text), cxAsst
	}
	return conv.Message{}, cxOther
}

func codexArgs(f *codexFields) jsonl.Value {
	if f.arguments.Exists() {
		return f.arguments
	}
	return f.input
}

// codexOutput reads a tool output: a string, an array of content items, or an conv.Object
// {content, success}.
func codexOutput(out jsonl.Value, id string, text conv.TextMode) conv.Block {
	var b conv.Block
	if c := out.Get("content"); out.IsObject() && c.Exists() {
		b = conv.ContentResultV(c, text)
		if s := out.Get("success"); s.Exists() && !s.Bool() {
			b.IsError = true
		}
	} else {
		b = conv.ContentResultV(out, text)
	}
	b.ID = id
	return b
}

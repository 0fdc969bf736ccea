package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// OutputDialect is what `ctxc load --as` writes.
type OutputDialect string

// Output dialects.
const (
	AsOpenAI    OutputDialect = "openai"
	AsAnthropic OutputDialect = "anthropic"
	AsCtxc      OutputDialect = "ctxc"
)

// ParseOutputDialect validates an --as value.
func ParseOutputDialect(s string) (OutputDialect, error) {
	switch OutputDialect(s) {
	case AsOpenAI, AsAnthropic, AsCtxc:
		return OutputDialect(s), nil
	}
	return "", fmt.Errorf("unknown --as %q (want openai, anthropic or ctxc)", s)
}

// OpaqueSummaryNote stands for a summary the agent stored in a form no other client can read
// (Codex's encrypted compaction item), so that the output still says history was compacted.
const OpaqueSummaryNote = "[ctxc] An earlier part of this conversation was compacted by the agent into an encrypted summary that only the original provider can read."

// ContinuesNote opens an --as anthropic context that would otherwise start with the assistant
// (the Messages API wants a user turn first).
const ContinuesNote = "[ctxc] (conversation continues)"

// PlaceholderResult answers a tool call whose result is not in the context, so that the output
// stays valid for the API (docs/design.md §5).
const PlaceholderResult = "[ctxc] No result was recorded for this tool call (the session was interrupted or the result is not part of the context)."

// PairReport says what PairToolCalls changed.
type PairReport struct {
	Placeholders   int // tool calls answered with PlaceholderResult
	DroppedResults int // tool results without a preceding call, dropped
}

// PairToolCalls makes a message list valid for chat APIs: every tool result answers a call that
// precedes it, and every call is answered before the conversation moves on. A call left
// unanswered in the middle gets a placeholder error result right after its message; a result
// with no call before it is dropped (an orphaned result is a hard 400 for every provider). Calls
// still open at the very end (an interrupted session) are left as they are. Tool calls without
// an id get a generated one.
func PairToolCalls(ms []Message) ([]Message, PairReport) {
	var rep PairReport
	out := make([]Message, 0, len(ms))
	var pending []Block // calls not answered yet, in order
	gen := 0
	flush := func() {
		if len(pending) == 0 {
			return
		}
		m := Message{Role: RoleTool}
		for _, c := range pending {
			m.Blocks = append(m.Blocks, Block{Kind: BlockToolResult, ID: c.ID, Name: c.Name, IsError: true,
				Text: PlaceholderResult, Chars: estimate.Chars(PlaceholderResult)})
			rep.Placeholders++
		}
		out = append(out, m)
		pending = pending[:0]
	}
	for _, m := range ms {
		hasCall, hasResult, hasOther := false, false, false
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				hasCall = true
			case BlockToolResult:
				hasResult = true
			default:
				hasOther = true
			}
		}
		if hasResult {
			kept := m.Blocks[:0:0]
			changed := false
			for _, b := range m.Blocks {
				if b.Kind != BlockToolResult {
					kept = append(kept, b)
					continue
				}
				i := indexCall(pending, b.ID)
				if i < 0 {
					rep.DroppedResults++
					changed = true
					continue
				}
				pending = append(pending[:i], pending[i+1:]...)
				kept = append(kept, b)
			}
			if changed {
				m.Blocks = kept
				m.Raw = nil
				if len(kept) == 0 {
					continue
				}
			}
			if hasOther || hasCall {
				flush() // the conversation moves on inside this message
			}
		} else if len(pending) > 0 && (hasCall || hasOther || m.Role != RoleTool) {
			flush()
		}
		if hasCall {
			flush()
			changedIDs := false
			for i := range m.Blocks {
				if m.Blocks[i].Kind == BlockToolCall && m.Blocks[i].ID == "" {
					// Ids are given to a copy: the caller's messages stay as they were.
					m.Blocks = append([]Block(nil), m.Blocks...)
					break
				}
			}
			for i := range m.Blocks {
				b := &m.Blocks[i]
				if b.Kind != BlockToolCall {
					continue
				}
				if b.ID == "" {
					gen++
					b.ID = fmt.Sprintf("call_ctxc_%d", gen)
					changedIDs = true
				}
				pending = append(pending, *b)
			}
			if changedIDs {
				m.Raw = nil
			}
		}
		out = append(out, m)
	}
	return out, rep
}

func indexCall(calls []Block, id string) int {
	for i, c := range calls {
		if c.ID == id {
			return i
		}
	}
	return -1
}

// WriteMessages writes messages as JSONL in the given dialect. Messages whose Raw was written in
// the same dialect are copied byte for byte; the others are converted. The caller repairs the
// list first (PairToolCalls) when the output must be valid for an API.
func WriteMessages(w io.Writer, ms []Message, as OutputDialect) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var lines [][]byte
	var err error
	switch as {
	case AsAnthropic:
		lines, err = anthropicLines(ms)
	case AsCtxc:
		lines, err = ctxcLines(ms)
	default:
		lines, err = openAILines(ms)
	}
	if err != nil {
		return err
	}
	for _, l := range lines {
		bw.Write(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// OpenAILine renders one message as OpenAI chat lines (a message with tool results becomes one
// "tool" message per result, then its other content).
func OpenAILine(m Message) ([][]byte, error) {
	if m.Dialect == DialectOpenAI && m.Raw != nil {
		return [][]byte{m.Raw}, nil
	}
	var out [][]byte
	var texts []string
	var parts []any
	var calls []openAICall
	for _, b := range m.Blocks {
		switch b.Kind {
		case BlockToolResult:
			l := append([]byte(`{"role":"tool","tool_call_id":`), jsonl.Quote(b.ID)...)
			l = append(l, `,"content":`...)
			l = jsonl.AppendQuote(l, b.Text)
			out = append(out, append(l, '}'))
		case BlockText:
			texts = append(texts, b.Text)
			parts = append(parts, textPart{Type: "text", Text: b.Text})
		case BlockImage:
			if p := openAIImagePart(b.Text); p != nil {
				parts = append(parts, p)
			}
		case BlockToolCall:
			calls = append(calls, openAICall{ID: b.ID, Type: "function", Function: openAIFunction{Name: b.Name, Arguments: b.Args}})
		}
	}
	role := m.Role
	if role == RoleTool {
		if len(texts) == 0 && len(parts) == 0 {
			return out, nil
		}
		role = RoleUser
	}
	if len(texts) == 0 && len(parts) == 0 && len(calls) == 0 {
		if !m.Summary {
			return out, nil // nothing the model can read (aborted turn, opaque blocks only)
		}
		texts = []string{OpaqueSummaryNote}
	}
	if len(parts) > len(texts) { // images present: content parts, the rare case
		l, err := marshal(openAIMsg{Role: string(role), Content: parts, ToolCalls: calls})
		if err != nil {
			return nil, err
		}
		return append(out, l), nil
	}
	// Written by hand: encoding/json is the slowest part of writing a large context. The bytes
	// are the same as marshal(openAIMsg{...}) gives (a test checks).
	l := append([]byte(`{"role":`), jsonl.Quote(string(role))...)
	l = append(l, `,"content":`...)
	if len(texts) > 0 {
		l = jsonl.AppendQuote(l, strings.Join(texts, "\n"))
	} else {
		l = append(l, "null"...)
	}
	if len(calls) > 0 {
		l = append(l, `,"tool_calls":[`...)
		for i, c := range calls {
			if i > 0 {
				l = append(l, ',')
			}
			l = append(l, `{"id":`...)
			l = jsonl.AppendQuote(l, c.ID)
			l = append(l, `,"type":"function","function":{"name":`...)
			l = jsonl.AppendQuote(l, c.Function.Name)
			l = append(l, `,"arguments":`...)
			l = jsonl.AppendQuote(l, c.Function.Arguments)
			l = append(l, "}}"...)
		}
		l = append(l, ']')
	}
	return append(out, append(l, '}')), nil
}

// Wire shapes, as structs so that fields come out in the order people expect to read them.
type openAIMsg struct {
	Role      string       `json:"role"`
	Content   any          `json:"content"`
	ToolCalls []openAICall `json:"tool_calls,omitempty"`
}

type openAICall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUsePart struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultPart struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

type anthropicMsg struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

func openAIImagePart(raw string) any {
	v := gjson.Parse(raw)
	switch v.Get("type").String() {
	case "image_url":
		return json.RawMessage(raw)
	case "image":
		if v.Get("source.type").String() == "base64" {
			return map[string]any{"type": "image_url", "image_url": map[string]any{
				"url": "data:" + v.Get("source.media_type").String() + ";base64," + v.Get("source.data").String()}}
		}
		if u := v.Get("source.url"); u.Exists() {
			return map[string]any{"type": "image_url", "image_url": map[string]any{"url": u.String()}}
		}
	}
	return nil
}

func openAILines(ms []Message) ([][]byte, error) {
	per, err := convertAll(ms, OpenAILine)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, ls := range per {
		out = append(out, ls...)
	}
	return out, nil
}

// convertAll renders every message with conv, the two halves of the list at once (writing a
// large context is mostly string escaping, which each message does on its own).
func convertAll(ms []Message, conv func(Message) ([][]byte, error)) ([][][]byte, error) {
	out := make([][][]byte, len(ms))
	run := func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			ls, err := conv(ms[i])
			if err != nil {
				return err
			}
			out[i] = ls
		}
		return nil
	}
	half := len(ms) / 2
	if len(ms) < 256 {
		half = 0
	}
	errc := make(chan error, 1)
	go func() { errc <- run(0, half) }()
	err2 := run(half, len(ms))
	if err := <-errc; err != nil {
		return nil, err
	}
	return out, err2
}

// asWritten is a message's lines as written when it has them in a message-list dialect, else
// its OpenAI lines.
func asWritten(m Message) ([][]byte, error) {
	if m.Summary {
		return nil, nil // becomes a marker in ctxcLines
	}
	if m.Raw != nil && m.Dialect != DialectNone {
		return [][]byte{m.Raw}, nil
	}
	return OpenAILine(m)
}

// anthropicLines renders messages for the Messages API: only user and assistant roles, strictly
// alternating, starting with user. System and developer messages become user text (the API
// takes them as a request parameter, which a JSONL of messages cannot carry); consecutive
// same-role messages are merged, tool results first as the API requires; thinking blocks are
// replayed as written (Block.Verbatim, with their signature) and dropped when there is no such
// copy, since a signature cannot be rebuilt.
func anthropicLines(ms []Message) ([][]byte, error) {
	type amsg struct {
		role   Role
		raw    []byte
		blocks []any
		first  int // index of the first tool_result-free block (results are kept in front)
	}
	var seq []*amsg
	for _, m := range ms {
		role := m.Role
		switch role {
		case RoleSystem, RoleDeveloper, RoleTool:
			role = RoleUser
		}
		var blocks []any
		var results []any
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockText:
				t := b.Text
				if m.Role == RoleSystem || m.Role == RoleDeveloper {
					t = "[" + string(m.Role) + " instructions]\n" + t
				}
				blocks = append(blocks, textPart{Type: "text", Text: t})
			case BlockToolCall:
				input := json.RawMessage(b.Args)
				if !gjson.Valid(b.Args) || !gjson.Parse(b.Args).IsObject() {
					input, _ = marshal(map[string]any{"input": b.Args})
				}
				blocks = append(blocks, toolUsePart{Type: "tool_use", ID: b.ID, Name: b.Name, Input: input})
			case BlockToolResult:
				results = append(results, toolResultPart{Type: "tool_result", ToolUseID: b.ID, Content: b.Text, IsError: b.IsError})
			case BlockThinking:
				if b.Verbatim != "" && m.Role == RoleAssistant {
					blocks = append(blocks, json.RawMessage(b.Verbatim))
				}
			case BlockImage:
				if v := gjson.Parse(b.Text); v.Get("type").String() == "image" {
					blocks = append(blocks, json.RawMessage(b.Text))
				}
			}
		}
		if len(results) == 0 && len(blocks) == 0 {
			if !m.Summary {
				continue
			}
			blocks = append(blocks, textPart{Type: "text", Text: OpaqueSummaryNote})
		}
		var raw []byte
		if m.Dialect == DialectAnthropic && m.Raw != nil {
			raw = m.Raw
		}
		if n := len(seq); n > 0 && seq[n-1].role == role {
			prev := seq[n-1]
			prev.raw = nil
			if len(results) > 0 {
				// Results go in front of the merged message's other blocks.
				merged := append([]any{}, prev.blocks[:prev.first]...)
				merged = append(merged, results...)
				merged = append(merged, prev.blocks[prev.first:]...)
				prev.blocks = merged
				prev.first += len(results)
			}
			prev.blocks = append(prev.blocks, blocks...)
			continue
		}
		seq = append(seq, &amsg{role: role, raw: raw, blocks: append(results, blocks...), first: len(results)})
	}
	if len(seq) > 0 && seq[0].role != RoleUser {
		seq = append([]*amsg{{role: RoleUser, blocks: []any{textPart{Type: "text", Text: ContinuesNote}}}}, seq...)
	}
	out := make([][]byte, 0, len(seq))
	for _, a := range seq {
		if a.raw != nil {
			out = append(out, a.raw)
			continue
		}
		l, err := marshal(anthropicMsg{Role: string(a.role), Content: a.blocks})
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// ctxcLines writes a ctxc-format file: messages as they were written (OpenAI lines for those
// converted), and each summary as a marker line carrying the messages before it as its head, so
// that loading the output gives the same context again.
func ctxcLines(ms []Message) ([][]byte, error) {
	per, err := convertAll(ms, asWritten)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	var head []json.RawMessage
	for i, m := range ms {
		if m.Summary {
			text := strings.TrimPrefix(m.TextContent(), SummaryPreamble)
			mk := Marker{Compact: text, Head: head}
			if mk.Head == nil {
				mk.Head = []json.RawMessage{}
			}
			l, err := marshal(mk)
			if err != nil {
				return nil, err
			}
			out = out[:len(out)-len(head)]
			out = append(out, l)
			head = nil
			continue
		}
		ls := per[i]
		for _, l := range ls {
			head = append(head, json.RawMessage(l))
		}
		out = append(out, ls...)
	}
	return out, nil
}

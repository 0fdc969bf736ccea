package conv

import "github.com/ctxc/ctxc/internal/estimate"

// Role of a message in the normalized model.
type Role string

// Roles.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// BlockKind says what a content block holds.
type BlockKind uint8

// Block kinds.
const (
	BlockText BlockKind = iota
	BlockThinking
	BlockToolCall
	BlockToolResult
	BlockImage
	BlockOpaque
)

func (k BlockKind) String() string {
	switch k {
	case BlockText:
		return "text"
	case BlockThinking:
		return "thinking"
	case BlockToolCall:
		return "tool_call"
	case BlockToolResult:
		return "tool_result"
	case BlockImage:
		return "image"
	}
	return "opaque"
}

// Block is one piece of message content.
type Block struct {
	Kind    BlockKind
	Text    string // text, thinking, tool-result text; opaque: raw JSON. Empty when read for stats only.
	ID      string // tool call id (BlockToolCall) or the id a result answers (BlockToolResult)
	Name    string // tool name
	Args    string // tool-call arguments as JSON text. Empty when read for stats only.
	IsError bool
	// Verbatim is a thinking block's JSON as written (with its signature, which cannot be
	// rebuilt), replayed as is where the output shape has thinking blocks (--as anthropic).
	Verbatim string
	Chars    int // code points this block contributes to the estimate (docs/design.md §4)
	Images   int // images inside the block (tool results can carry images)

	// Cut is set on a large tool result read with Options.Windowed: Text then holds only the
	// beginning of the text and Tail its end (each at least ToolTextWindow bytes, cut at escape
	// and rune boundaries); the part between was not decoded. Materialize reads it back.
	Cut  bool
	Tail string
	// CutSrc, with Cut, while parsing: the JSON string literal, in the line.
	CutSrc string `json:"-"`
	// Span, with Cut, after parsing: where that literal is in the file.
	Span Span `json:"-"`
}

// Span is a part of the file: what a windowed load left out and Materialize reads back.
type Span struct {
	Off int64
	N   int32
}

// Usage is provider usage recorded in the transcript for one response.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Total is the context the response saw plus what it produced.
func (u Usage) Total() int { return u.Input + u.Output + u.CacheRead + u.CacheWrite }

// Dialect is the wire shape a message was written in, so that it can be passed through verbatim
// when the output uses the same shape.
type Dialect uint8

// Dialects.
const (
	DialectNone Dialect = iota
	DialectOpenAI
	DialectAnthropic
)

// Message is one normalized conversation message.
type Message struct {
	Role    Role
	Blocks  []Block
	Usage   *Usage
	Line    int     // line it came from (0 when synthesized)
	Raw     []byte  // the message JSON as written, when it can be replayed verbatim
	Dialect Dialect // shape of Raw
	Summary bool    // a compaction summary (ctxc, Claude Code, Codex, pi)
	MsgID   string  // provider message id, used to merge Claude Code's split assistant lines
	// RawSpan: a windowed load of a long line: where Raw is in the file (Raw is nil).
	RawSpan Span `json:"-"`
	// Edited: ctxc changed the message (an emergency compaction cut a block): writers render it
	// anew rather than copying its records.
	Edited bool
	// Src lists the records the message was built from when that is more than its own line
	// (a response merged from several lines, a Codex item inside a replacement_history, a
	// message ctxc synthesized): native writers copy those records (Sources).
	Src []SrcRef
}

// SrcRef is one record a message came from.
type SrcRef struct {
	Line int32 // file line
	// Item: 0 = the line's own record; k > 0 = item k-1 of the line's Codex
	// replacement_history; SrcSynthesized = no record: ctxc rendered it (rendered anew).
	Item int32
}

// SrcSynthesized marks a message that no record holds as such (a legacy Codex rebuild's summary
// or truncated user text, an output Codex gives a call left open).
const SrcSynthesized = -1

// Sources are the records the message came from, in order.
func (m *Message) Sources() []SrcRef {
	if m.Src != nil {
		return m.Src
	}
	if m.Line > 0 {
		return []SrcRef{{Line: int32(m.Line)}}
	}
	return nil
}

// Absorb merges the blocks of the next record of the same response into m.
func (m *Message) Absorb(next *Message) {
	own := m.Sources()
	src := append(own[:len(own):len(own)], next.Sources()...)
	m.Blocks = append(m.Blocks[:len(m.Blocks):len(m.Blocks)], next.Blocks...)
	m.Raw = nil
	m.Src = src
	if next.Usage != nil {
		m.Usage = next.Usage
	}
}

// Chars counts the code points of what the model sees (docs/design.md §4).
func (m *Message) Chars() int {
	n := 0
	for i := range m.Blocks {
		n += m.Blocks[i].Chars
	}
	return n
}

// Images counts image blocks, each estimated at a fixed cost.
func (m *Message) Images() int {
	n := 0
	for i := range m.Blocks {
		if m.Blocks[i].Kind == BlockImage {
			n++
		}
		n += m.Blocks[i].Images
	}
	return n
}

// Tokens is the message's chars/4 estimate plus fixed image costs.
func (m *Message) Tokens() int {
	return estimate.FromChars(m.Chars()) + m.Images()*estimate.ImageTokens
}

// ToolCalls counts tool-call blocks.
func (m *Message) ToolCalls() int { return m.count(BlockToolCall) }

// ToolResults counts tool-result blocks.
func (m *Message) ToolResults() int { return m.count(BlockToolResult) }

func (m *Message) count(k BlockKind) int {
	n := 0
	for i := range m.Blocks {
		if m.Blocks[i].Kind == k {
			n++
		}
	}
	return n
}

// TextContent joins the text blocks.
func (m *Message) TextContent() string {
	var s string
	for _, b := range m.Blocks {
		if b.Kind == BlockText {
			if s != "" {
				s += "\n"
			}
			s += b.Text
		}
	}
	return s
}

// SummaryPreamble opens every summary message ctxc puts into a context, so that the model (and a
// person reading the JSONL) knows the text is a summary, who wrote it, and that it is not a new
// request.
const SummaryPreamble = "[ctxc] The earlier part of this conversation was compacted. The following is a summary of it written by ctxc, not a new message from the user:\n\n"

// SummaryMessage builds the user-role message that stands for a summary in a context.
func SummaryMessage(summary string, line int) Message {
	text := SummaryPreamble + summary
	return Message{Role: RoleUser, Line: line, Summary: true,
		Blocks: []Block{{Kind: BlockText, Text: text, Chars: estimate.Chars(text)}}}
}

// IsUserTurn reports a message typed by the user: user role, not only tool results, not a summary.
func (m *Message) IsUserTurn() bool {
	return m.Role == RoleUser && !m.Summary && (len(m.Blocks) == 0 || m.ToolResults() < len(m.Blocks))
}

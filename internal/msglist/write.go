package msglist

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/conv"
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
	Moved          int // messages that stood between a call and its result, moved after the result
}

// PairToolCalls makes a message list valid for chat APIs: every tool result answers a call that
// precedes it, and every call is answered before the conversation moves on. A message that
// stands between a call and its result (a developer or user message Codex recorded while the
// call ran, a note between a tool_use and its tool_result) is moved after the results: no
// result is lost to it. A call left unanswered in the middle gets a placeholder error result
// right after its message; a result with no call before it is dropped (an orphaned result is a
// hard 400 for every provider). Calls still open at the very end (an interrupted session) are
// left as they are. Tool calls without an id get a generated one.
func PairToolCalls(ms []conv.Message) ([]conv.Message, PairReport) {
	p := callPairing{out: make([]conv.Message, 0, len(ms)), lastResult: lastResults(ms)}
	for i, m := range ms {
		p.add(m, i)
	}
	p.release()
	return p.out, p.rep
}

// lastResults gives, for each call id that a tool result answers, the index of the last message
// holding such a result.
func lastResults(ms []conv.Message) map[string]int {
	last := map[string]int{}
	for i := range ms {
		for _, b := range ms[i].Blocks {
			if b.Kind == conv.BlockToolResult && b.ID != "" {
				last[b.ID] = i
			}
		}
	}
	return last
}

// generatedCallID is the id PairToolCalls gives the n-th call that has none (APIs match results
// to calls by id).
func generatedCallID(n int) string { return fmt.Sprintf("call_ctxc_%d", n) }

// callPairing is a message list being made valid for chat APIs: the messages so far, the calls
// among them still waiting for their result, and the messages held back until those results
// are in.
type callPairing struct {
	out        []conv.Message
	pending    []conv.Block // calls not answered yet, in order
	held       []conv.Message
	lastResult map[string]int // lastResults of the whole list
	gen        int            // ids generated so far
	rep        PairReport
}

// add appends m, the i-th message, answering the pending calls with placeholders first where m
// shows that the conversation has moved on past them; a message that only stands between
// pending calls and their results, which come later, is held until they are in.
func (p *callPairing) add(m conv.Message, i int) {
	hasCall, hasResult, hasOther := blockKinds(m.Blocks)
	switch {
	case !hasCall && !hasResult && p.resultsAhead(i):
		p.held = append(p.held, m)
		p.rep.Moved++
		return
	case hasResult && len(p.held) > 0 && (hasCall || hasOther):
		// The results first, then what was held, then the rest of m.
		res, rest := SplitResults(m)
		p.add(res, i)
		p.add(rest, i)
		return
	}
	if hasResult {
		var left bool
		if m, left = p.takeResults(m); !left {
			p.settle(i)
			return
		}
		if hasOther || hasCall {
			p.flush() // the conversation moves on inside this message
		}
	} else if len(p.pending) > 0 && (hasCall || hasOther || m.Role != conv.RoleTool) {
		p.flush()
	}
	if hasCall {
		p.flush()
		m = p.openCalls(m)
	}
	p.out = append(p.out, m)
	if hasResult {
		p.settle(i)
	}
}

// resultsAhead says whether a pending call has a result after the i-th message.
func (p *callPairing) resultsAhead(i int) bool {
	for _, c := range p.pending {
		if at, ok := p.lastResult[c.ID]; ok && at > i {
			return true
		}
	}
	return false
}

// settle, after the results of the i-th message: when no pending call has a result still to
// come, the conversation goes on with what was held (the calls left get placeholders first).
func (p *callPairing) settle(i int) {
	if len(p.held) > 0 && !p.resultsAhead(i) {
		p.flush()
	}
}

// SplitResults splits m into its tool results and its other blocks, two messages of its role.
func SplitResults(m conv.Message) (res, rest conv.Message) {
	res, rest = m, m
	res.Blocks, rest.Blocks = nil, nil
	res.Raw, rest.Raw = nil, nil // no longer what was written
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			res.Blocks = append(res.Blocks, b)
		} else {
			rest.Blocks = append(rest.Blocks, b)
		}
	}
	return res, rest
}

// blockKinds says what a message's blocks hold: tool calls, tool results, anything else.
func blockKinds(blocks []conv.Block) (hasCall, hasResult, hasOther bool) {
	for _, b := range blocks {
		switch b.Kind {
		case conv.BlockToolCall:
			hasCall = true
		case conv.BlockToolResult:
			hasResult = true
		default:
			hasOther = true
		}
	}
	return hasCall, hasResult, hasOther
}

// takeResults keeps the tool results of m that answer a pending call, which is then no longer
// pending, and drops the others; left is false when dropping them leaves m empty.
func (p *callPairing) takeResults(m conv.Message) (_ conv.Message, left bool) {
	kept := m.Blocks[:0:0]
	changed := false
	for _, b := range m.Blocks {
		if b.Kind != conv.BlockToolResult {
			kept = append(kept, b)
			continue
		}
		i := indexCall(p.pending, b.ID)
		if i < 0 {
			p.rep.DroppedResults++
			changed = true
			continue
		}
		p.pending = append(p.pending[:i], p.pending[i+1:]...)
		kept = append(kept, b)
	}
	if !changed {
		return m, true
	}
	m.Blocks = kept
	m.Raw = nil // no longer what was written
	return m, len(kept) > 0
}

// openCalls makes the tool calls of m the pending ones, giving an id to each call that has
// none; the ids go on a copy of its blocks, so the caller's messages stay as they were.
func (p *callPairing) openCalls(m conv.Message) conv.Message {
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolCall && b.ID == "" {
			m.Blocks = append([]conv.Block(nil), m.Blocks...)
			break
		}
	}
	changedIDs := false
	for i := range m.Blocks {
		b := &m.Blocks[i]
		if b.Kind != conv.BlockToolCall {
			continue
		}
		if b.ID == "" {
			p.gen++
			b.ID = generatedCallID(p.gen)
			changedIDs = true
		}
		p.pending = append(p.pending, *b)
	}
	if changedIDs {
		m.Raw = nil // no longer what was written
	}
	return m
}

// flush answers every pending call with a placeholder error result, in one tool message, so
// that no call is left open when the conversation moves on; then come the messages held back.
func (p *callPairing) flush() {
	if len(p.pending) > 0 {
		m := conv.Message{Role: conv.RoleTool}
		for _, c := range p.pending {
			m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockToolResult, ID: c.ID, Name: c.Name, IsError: true,
				Text: PlaceholderResult, Chars: estimate.Chars(PlaceholderResult)})
			p.rep.Placeholders++
		}
		p.out = append(p.out, m)
		p.pending = p.pending[:0]
	}
	p.release()
}

// release appends the messages held back, in their order.
func (p *callPairing) release() {
	p.out = append(p.out, p.held...)
	p.held = p.held[:0]
}

// indexCall is the position of the call with the given id among calls, -1 when none has it.
func indexCall(calls []conv.Block, id string) int {
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
func WriteMessages(w io.Writer, ms []conv.Message, as OutputDialect) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var lines [][]byte
	var err error
	switch as {
	case AsAnthropic:
		lines, err = anthropicLines(ms)
	case AsCtxc:
		lines, err = ctxcLines(ms)
	default:
		return writeOpenAI(bw, ms)
	}
	if err != nil {
		return err
	}
	var lw validLines
	for i, l := range lines {
		lw.write(bw, l)
		lines[i] = nil // written: its memory can go
	}
	return bw.Flush()
}

// streamResultFrom: a tool result this long or longer is written in the openai shape straight
// to the output, quoted piece by piece (jsonl.WriteQuote), never built as a line of its own:
// the output of a 100 MB tool result costs 64 KiB, not a quoted copy of 100 MB and more.
const streamResultFrom = 1 << 20

// writeOpenAI writes ms in the openai shape: the messages' lines are built two halves at once
// (convertAll), except the tool results of streamResultFrom bytes or more, written in order as
// their turn comes. The bytes are those openAILines gives (a test checks).
func writeOpenAI(bw *bufio.Writer, ms []conv.Message) error {
	per, err := convertAll(ms, func(m conv.Message) ([][]byte, error) {
		if streamsResult(&m) {
			return nil, nil
		}
		return OpenAILine(m)
	})
	if err != nil {
		return err
	}
	var lw validLines
	for i := range ms {
		if streamsResult(&ms[i]) {
			per[i], err = streamOpenAIResults(bw, ms[i])
			if err != nil {
				return err
			}
		}
		for _, l := range per[i] {
			lw.write(bw, l)
		}
		per[i] = nil // written: its memory can go
	}
	return bw.Flush()
}

// streamsResult: m has a tool result of streamResultFrom bytes or more and is not copied as
// written (OpenAILine copies a raw openai message whole).
func streamsResult(m *conv.Message) bool {
	if m.Dialect == conv.DialectOpenAI && m.Raw != nil {
		return false
	}
	for i := range m.Blocks {
		if m.Blocks[i].Kind == conv.BlockToolResult && len(m.Blocks[i].Text) >= streamResultFrom {
			return true
		}
	}
	return false
}

// streamOpenAIResults writes m's tool results as OpenAILine does, one "tool" line each, the
// text quoted piece by piece, and returns the lines of the rest of m (its text and calls),
// which OpenAILine writes after the results.
func streamOpenAIResults(bw *bufio.Writer, m conv.Message) ([][]byte, error) {
	rest := m
	rest.Blocks = make([]conv.Block, 0, len(m.Blocks))
	for _, b := range m.Blocks {
		if b.Kind != conv.BlockToolResult {
			rest.Blocks = append(rest.Blocks, b)
			continue
		}
		bw.WriteString(`{"role":"tool","tool_call_id":`)
		bw.Write(jsonl.Quote(b.ID))
		bw.WriteString(`,"content":`)
		if err := jsonl.WriteQuote(bw, b.Text); err != nil {
			return nil, err
		}
		if _, err := bw.WriteString("}\n"); err != nil {
			return nil, err
		}
	}
	return OpenAILine(rest)
}

// validLines writes JSON lines with every byte that is not valid UTF-8 written as \ufffd
// (jsonl.AppendValidUTF8): raw messages are copied as they were. A valid line, the usual one,
// is written as it is, without a copy.
type validLines struct{ buf []byte }

func (v *validLines) write(bw *bufio.Writer, l []byte) {
	if utf8.Valid(l) {
		bw.Write(l)
	} else {
		v.buf, _ = jsonl.AppendValidUTF8(v.buf[:0], l)
		bw.Write(v.buf)
	}
	bw.WriteByte('\n')
}

// InvalidUTF8 counts the bytes of the messages' text that are not valid UTF-8, which
// WriteMessages writes as U+FFFD, and gives the file line of the first message that has any
// (0: none).
func InvalidUTF8(ms []conv.Message) (n, line int) {
	for i := range ms {
		m := &ms[i]
		k := 0
		if m.Raw != nil {
			k = jsonl.InvalidUTF8(conv.UnsafeString(m.Raw))
		} else {
			for _, b := range m.Blocks {
				k += jsonl.InvalidUTF8(b.Text) + jsonl.InvalidUTF8(b.Args) + jsonl.InvalidUTF8(b.Name) + jsonl.InvalidUTF8(b.ID)
			}
		}
		if k > 0 && line == 0 {
			line = m.Line
		}
		n += k
	}
	return n, line
}

// OpenAILine renders one message as OpenAI chat lines (a message with tool results becomes one
// "tool" message per result, then its other content).
func OpenAILine(m conv.Message) ([][]byte, error) {
	if m.Dialect == conv.DialectOpenAI && m.Raw != nil {
		return [][]byte{m.Raw}, nil
	}
	var out [][]byte
	var texts []string
	var parts []any
	var calls []openAICall
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockToolResult:
			l := append([]byte(`{"role":"tool","tool_call_id":`), jsonl.Quote(b.ID)...)
			l = append(l, `,"content":`...)
			l = jsonl.AppendQuote(l, b.Text)
			out = append(out, append(l, '}'))
		case conv.BlockText:
			texts = append(texts, b.Text)
			parts = append(parts, textPart{Type: "text", Text: b.Text})
		case conv.BlockImage:
			if p := openAIImagePart(b.Text); p != nil {
				parts = append(parts, p)
			}
		case conv.BlockToolCall:
			calls = append(calls, openAICall{ID: b.ID, Type: "function", Function: openAIFunction{Name: b.Name, Arguments: b.Args}})
		}
	}
	role := m.Role
	if role == conv.RoleTool {
		if len(texts) == 0 && len(parts) == 0 {
			return out, nil
		}
		role = conv.RoleUser
	}
	if len(texts) == 0 && len(parts) == 0 && len(calls) == 0 {
		if !m.Summary {
			return out, nil // nothing the model can read (aborted turn, opaque blocks only)
		}
		texts = []string{OpaqueSummaryNote}
	}
	if len(parts) > len(texts) { // images present: content parts, the rare case
		l, err := conv.Marshal(openAIMsg{Role: string(role), Content: parts, ToolCalls: calls})
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

func openAILines(ms []conv.Message) ([][]byte, error) {
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
func convertAll(ms []conv.Message, conv func(conv.Message) ([][]byte, error)) ([][][]byte, error) {
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
func asWritten(m conv.Message) ([][]byte, error) {
	if m.Summary {
		return nil, nil // becomes a marker in ctxcLines
	}
	if m.Raw != nil && m.Dialect != conv.DialectNone {
		return [][]byte{m.Raw}, nil
	}
	return OpenAILine(m)
}

// anthropicLines renders messages for the Messages API: only user and assistant roles, strictly
// alternating, starting with user. System and developer messages become user text (the API
// takes them as a request parameter, which a JSONL of messages cannot carry); consecutive
// same-role messages are merged, tool results first as the API requires; thinking blocks are
// replayed as written (conv.Block.Verbatim, with their signature) and dropped when there is no such
// copy, since a signature cannot be rebuilt.
func anthropicLines(ms []conv.Message) ([][]byte, error) {
	var seq []*anthropicTurn
	for _, m := range ms {
		results, blocks := anthropicBlocks(&m)
		if len(results) == 0 && len(blocks) == 0 {
			if !m.Summary {
				continue // nothing the model can read
			}
			blocks = append(blocks, textPart{Type: "text", Text: OpaqueSummaryNote})
		}
		role := anthropicRole(m.Role)
		if n := len(seq); n > 0 && seq[n-1].role == role {
			seq[n-1].merge(results, blocks)
			continue
		}
		var raw []byte
		if m.Dialect == conv.DialectAnthropic && m.Raw != nil {
			raw = m.Raw
		}
		seq = append(seq, &anthropicTurn{role: role, raw: raw, blocks: append(results, blocks...), first: len(results)})
	}
	if len(seq) > 0 && seq[0].role != conv.RoleUser {
		seq = append([]*anthropicTurn{{role: conv.RoleUser, blocks: []any{textPart{Type: "text", Text: ContinuesNote}}}}, seq...)
	}
	return anthropicEncode(seq)
}

// anthropicTurn is one message of the Messages API output: the merge of consecutive messages of
// one role.
type anthropicTurn struct {
	role   conv.Role
	raw    []byte // the message as written, while it is a single Anthropic message
	blocks []any
	first  int // index of the first tool_result-free block (results are kept in front)
}

// anthropicRole is the role a message takes in the Messages API, which has only user and
// assistant: the system, developer and tool messages are the user's.
func anthropicRole(r conv.Role) conv.Role {
	switch r {
	case conv.RoleSystem, conv.RoleDeveloper, conv.RoleTool:
		return conv.RoleUser
	}
	return r
}

// anthropicBlocks renders the content of m as Messages API blocks, its tool results apart (they
// go in front of the turn). A thinking block is kept only as written, by the assistant, and an
// image only in Anthropic's shape: neither can be rebuilt from another.
func anthropicBlocks(m *conv.Message) (results, blocks []any) {
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			t := b.Text
			if m.Role == conv.RoleSystem || m.Role == conv.RoleDeveloper {
				t = "[" + string(m.Role) + " instructions]\n" + t
			}
			blocks = append(blocks, textPart{Type: "text", Text: t})
		case conv.BlockToolCall:
			blocks = append(blocks, toolUsePart{Type: "tool_use", ID: b.ID, Name: b.Name, Input: anthropicToolInput(b.Args)})
		case conv.BlockToolResult:
			results = append(results, toolResultPart{Type: "tool_result", ToolUseID: b.ID, Content: b.Text, IsError: b.IsError})
		case conv.BlockThinking:
			if b.Verbatim != "" && m.Role == conv.RoleAssistant {
				blocks = append(blocks, json.RawMessage(b.Verbatim))
			}
		case conv.BlockImage:
			if v := gjson.Parse(b.Text); v.Get("type").String() == "image" {
				blocks = append(blocks, json.RawMessage(b.Text))
			}
		}
	}
	return results, blocks
}

// anthropicToolInput is a call's arguments as a tool_use input, which must be a JSON object:
// other arguments are wrapped as {"input": args}.
func anthropicToolInput(args string) json.RawMessage {
	if gjson.Valid(args) && gjson.Parse(args).IsObject() {
		return json.RawMessage(args)
	}
	input, _ := conv.Marshal(map[string]any{"input": args})
	return input
}

// merge adds the next message of the same role to the turn, its tool results after the
// turn's results and before its other blocks, as the API requires.
func (t *anthropicTurn) merge(results, blocks []any) {
	t.raw = nil
	if len(results) > 0 {
		merged := append([]any{}, t.blocks[:t.first]...)
		merged = append(merged, results...)
		merged = append(merged, t.blocks[t.first:]...)
		t.blocks = merged
		t.first += len(results)
	}
	t.blocks = append(t.blocks, blocks...)
}

// anthropicEncode writes each turn as a line: as written when it is a single Anthropic message,
// else encoded.
func anthropicEncode(seq []*anthropicTurn) ([][]byte, error) {
	out := make([][]byte, 0, len(seq))
	for _, a := range seq {
		if a.raw != nil {
			out = append(out, a.raw)
			continue
		}
		l, err := conv.Marshal(anthropicMsg{Role: string(a.role), Content: a.blocks})
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
func ctxcLines(ms []conv.Message) ([][]byte, error) {
	per, err := convertAll(ms, asWritten)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	var head []json.RawMessage
	for i, m := range ms {
		if m.Summary {
			text := strings.TrimPrefix(m.TextContent(), conv.SummaryPreamble)
			mk := conv.Marker{Compact: text, Head: head}
			if mk.Head == nil {
				mk.Head = []json.RawMessage{}
			}
			l, err := conv.Marshal(mk)
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

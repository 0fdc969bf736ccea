// Package openhands is ctxc's code for OpenHands conversations, as internal/agent/openhands/openhandsconv exports
// them: their reader, the decoder of one line and the writer of a compaction.
package openhands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads OpenHands conversations (its software agent SDK's, which the OpenHands
// CLI runs: ~/.openhands/conversations/<id>/events/event-<index>-<id>.json) as
// internal/agent/openhands/openhandsconv exports them: a header {"type":"openhands","sessionId",...}, then each
// event on a line, in index order. An event's "kind" says what it is.
//
// Conversation (SDK's LLMConvertibleEvent.to_llm_message and events_to_messages):
//   - SystemPromptEvent: a system message of system_prompt.text (and dynamic_context.text);
//   - MessageEvent: llm_message (its role, its text and image content, then extended_content;
//     thinking_blocks and reasoning_content as thinking);
//   - ActionEvent: an assistant message of its thought, reasoning and tool_call (id, name,
//     arguments); the ActionEvents in a row of one llm_response_id are one message (one response
//     of parallel calls);
//   - ObservationEvent: a tool message answering tool_call_id: observation.to_llm_content, "[An
//     error occurred during execution.]\n" first when is_error, then its content; a
//     TerminalObservation's text is its metadata's prefix, text and suffix, then its working
//     directory, Python interpreter and exit code lines;
//   - UserRejectObservation: "Action rejected: <reason>"; AgentErrorEvent: its error.
//
// Other events (state updates, pauses, condensation requests) are none.
//
// Compaction: a Condensation event removes the events of forgotten_event_ids from the view and,
// with a summary and a summary_offset, inserts the summary (a user message) at that place of
// what is left (View.from_events). Each Condensation counts as a compaction.
type reader struct {
	view []entry // the view, as the events so far leave it
	// prevResponse is the MsgID of the last event's message (an ActionEvent's response): a
	// further ActionEvent of that response continues its message in the statistics.
	prevResponse string
	prevChars    int
}

// entry is one event of the view: its id, where it is (the summary of a Condensation:
// sel selSummary), and what its message counts: an action's response id (hashed) makes
// it one message with the action before it in the view when that one has the same (finish).
type entry struct {
	id            string
	at            conv.Ref
	chars, images int
	response      uint64
}

const (
	selEvent uint8 = iota
	selSummary
)

// HeaderType is the type of the export's first line.
const HeaderType = "openhands"

// errorHeader is what the SDK puts before the content of an observation with is_error.
const errorHeader = "[An error occurred during execution.]\n"

// NewReader is a reader of one OpenHands conversation.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	kind := v.Get("kind").Str()
	if kind == "Condensation" {
		r.condense(l, v, st)
		r.prevResponse = ""
		return
	}
	m, ok := message(v, kind, conv.NoText)
	if !ok {
		return
	}
	m.Line = l.Num
	if m.MsgID != "" && m.MsgID == r.prevResponse {
		st.CountContinuation(&m, r.prevChars)
		r.prevChars += m.Chars()
	} else {
		st.CountMessage(&m)
		r.prevChars = m.Chars()
	}
	r.prevResponse = strings.Clone(m.MsgID)
	e := entry{id: strings.Clone(v.Get("id").Str()), chars: m.Chars(), images: m.Images(),
		at: conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num)}}
	if m.MsgID != "" {
		e.response = conv.IDKey(m.MsgID)
	}
	r.view = append(r.view, e)
}

// condense applies a Condensation to the view (Condensation.apply).
func (r *reader) condense(l *conv.Line, v jsonl.Value, st *conv.Stats) {
	st.Compactions++
	st.AddRecord(l)
	forgotten := map[string]bool{}
	v.Get("forgotten_event_ids").Each(func(_ string, id jsonl.Value) bool {
		forgotten[id.Str()] = true
		return true
	})
	kept := r.view[:0]
	for _, e := range r.view {
		if !forgotten[e.id] {
			kept = append(kept, e)
		}
	}
	r.view = kept
	summary, offset := v.Get("summary"), v.Get("summary_offset")
	if !summary.IsString() || !isNumber(offset) {
		return
	}
	m := summaryMessage(summary, conv.NoText)
	e := entry{id: strings.Clone(v.Get("id").Str()) + "-summary", chars: m.Chars(),
		at: conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Sel: selSummary}}
	i := min(max(int(offset.Int()), 0), len(r.view)) // (Python's list.insert)
	r.view = append(r.view, entry{})
	copy(r.view[i+1:], r.view[i:])
	r.view[i] = e
}

// finish gives the view's refs: an action whose response is the one of the action before it is
// no message of its own (Result.Messages merges it, by MsgID) and adds to that message's
// estimate what its characters add.
func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatOpenhands
	refs := make([]conv.Ref, len(r.view))
	chars := 0
	for i, e := range r.view {
		at := e.at
		if i > 0 && e.response != 0 && r.view[i-1].response == e.response {
			at.Tokens = int32(estimate.FromChars(chars+e.chars) - estimate.FromChars(chars) + e.images*estimate.ImageTokens)
			chars += e.chars
		} else {
			at.Msgs, at.Tokens = 1, int32(estimate.FromChars(e.chars)+e.images*estimate.ImageTokens)
			chars = e.chars
		}
		refs[i] = at
	}
	return refs
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if x.Sel == selSummary {
		m := summaryMessage(v.Get("summary"), conv.WithText)
		m.Line = x.LineNum()
		return []conv.Message{m}, nil
	}
	m, ok := message(v, v.Get("kind").Str(), conv.WithText)
	if !ok {
		return nil, fmt.Errorf("not an OpenHands event of the conversation")
	}
	m.Line = x.LineNum()
	return []conv.Message{m}, nil
}

// summaryMessage is a Condensation's summary as the SDK sends it (CondensationSummaryEvent).
func summaryMessage(summary jsonl.Value, text conv.TextMode) conv.Message {
	return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{conv.TextBlockV(conv.BlockText, summary, text)}}
}

// message is the message an event is in the conversation (ok false for an event that
// is none).
func message(v jsonl.Value, kind string, text conv.TextMode) (conv.Message, bool) {
	switch kind {
	case "SystemPromptEvent":
		m := conv.Message{Role: conv.RoleSystem}
		for _, k := range []string{"system_prompt", "dynamic_context"} {
			if t := v.Get(k).Get("text"); t.IsString() {
				m.Blocks = append(m.Blocks, conv.TextBlockV(conv.BlockText, t, text))
			}
		}
		return m, true
	case "MessageEvent":
		return llmMessage(v, text)
	case "ActionEvent":
		return action(v, text), true
	case "ObservationEvent", "UserRejectObservation", "AgentErrorEvent":
		return observation(v, kind, text), true
	case "CondensationSummaryEvent": // (the SDK makes it from a Condensation; read if written)
		return summaryMessage(v.Get("summary"), text), true
	}
	return conv.Message{}, false
}

// llmMessage is a MessageEvent's llm_message, its extended_content after its content.
func llmMessage(v jsonl.Value, text conv.TextMode) (conv.Message, bool) {
	lm := v.Get("llm_message")
	var m conv.Message
	switch lm.Get("role").Str() {
	case "user":
		m.Role = conv.RoleUser
	case "assistant":
		m.Role = conv.RoleAssistant
	case "system":
		m.Role = conv.RoleSystem
	case "tool":
		m.Role = conv.RoleTool
	default:
		return conv.Message{}, false
	}
	m.Blocks = thinking(lm, m.Blocks, text)
	m.Blocks = content(lm.Get("content"), conv.BlockText, m.Blocks, text)
	m.Blocks = content(v.Get("extended_content"), conv.BlockText, m.Blocks, text)
	return m, true
}

// thinking appends what a message or an action says of its reasoning: its
// thinking_blocks, else its reasoning_content.
func thinking(v jsonl.Value, out []conv.Block, text conv.TextMode) []conv.Block {
	n := len(out)
	v.Get("thinking_blocks").Each(func(_ string, b jsonl.Value) bool {
		if t := b.Get("thinking"); t.IsString() && t != `""` {
			out = append(out, conv.TextBlockV(conv.BlockThinking, t, text))
		}
		return true
	})
	if t := v.Get("reasoning_content"); len(out) == n && t.IsString() && t != `""` {
		out = append(out, conv.TextBlockV(conv.BlockThinking, t, text))
	}
	return out
}

// content appends a content list's text and images, as blocks of kind (text, or a
// tool result's).
func content(content jsonl.Value, kind conv.BlockKind, out []conv.Block, text conv.TextMode) []conv.Block {
	content.Each(func(_ string, c jsonl.Value) bool {
		switch c.Get("type").Str() {
		case "text":
			out = append(out, conv.TextBlockV(kind, c.Get("text"), text))
		case "image":
			n := 0
			c.Get("image_urls").Each(func(string, jsonl.Value) bool { n++; return true })
			out = append(out, conv.Block{Kind: conv.BlockImage, Images: n})
		}
		return true
	})
	return out
}

// action is an ActionEvent's assistant message: its thought, its reasoning and its
// tool call. MsgID is the response's id, which merges the actions of one response.
func action(v jsonl.Value, text conv.TextMode) conv.Message {
	m := conv.Message{Role: conv.RoleAssistant}
	m.Blocks = thinking(v, m.Blocks, text)
	m.Blocks = content(v.Get("thought"), conv.BlockText, m.Blocks, text)
	call := v.Get("tool_call")
	m.Blocks = append(m.Blocks, conv.ToolCallBlockV(call.Get("id").Str(), call.Get("name").Str(), call.Get("arguments"), text))
	if id := v.Get("llm_response_id").Str(); id != "" {
		m.MsgID = "openhands:" + id
	}
	return m
}

// observation is a tool message answering an action.
func observation(v jsonl.Value, kind string, text conv.TextMode) conv.Message {
	id, name := v.Get("tool_call_id").Str(), v.Get("tool_name").Str()
	var blocks []conv.Block
	switch kind {
	case "UserRejectObservation":
		reason := v.Get("rejection_reason")
		if !reason.IsString() {
			reason = `"User rejected the action"`
		}
		blocks = []conv.Block{conv.LiteralBlock("Action rejected: "+reason.Str(), text)}
	case "AgentErrorEvent":
		blocks = []conv.Block{conv.TextBlockV(conv.BlockText, v.Get("error"), text)}
		blocks[0].IsError = true
	default:
		blocks = observationContent(v.Get("observation"), text)
		blocks = content(v.Get("extended_content"), conv.BlockText, blocks, text)
	}
	blocks[0].Kind, blocks[0].ID, blocks[0].Name = conv.BlockToolResult, id, name // (then any extended content)
	return conv.Message{Role: conv.RoleTool, Blocks: blocks}
}

// observationContent is an observation's to_llm_content as one tool result: the error
// header when is_error, then its content's text (a terminal's: framed by its metadata); its
// images after it.
func observationContent(obs jsonl.Value, text conv.TextMode) []conv.Block {
	var b strings.Builder
	if obs.Get("is_error").Bool() {
		b.WriteString(errorHeader)
	}
	if obs.Get("kind").Str() == "TerminalObservation" {
		b.WriteString(terminalText(obs))
		return []conv.Block{conv.LiteralBlock(b.String(), text)}
	}
	images := content(obs.Get("content"), conv.BlockText, nil, conv.WithText)
	for _, c := range images {
		b.WriteString(c.Text)
	}
	out := []conv.Block{conv.LiteralBlock(b.String(), text)}
	for _, c := range images {
		if c.Kind == conv.BlockImage {
			out = append(out, c)
		}
	}
	return out
}

// terminalText is a TerminalObservation's text as the SDK sends it (its
// to_llm_content; the truncation of an output over 30,000 characters is not applied).
func terminalText(obs jsonl.Value) string {
	var b strings.Builder
	md := obs.Get("metadata")
	b.WriteString(md.Get("prefix").Str())
	obs.Get("content").Each(func(_ string, c jsonl.Value) bool {
		if c.Get("type").Str() == "text" {
			b.WriteString(c.Get("text").Text())
		}
		return true
	})
	b.WriteString(md.Get("suffix").Str())
	if wd := md.Get("working_dir"); wd.IsString() && wd.Str() != "" {
		b.WriteString("\n[Current working directory: " + wd.Str() + "]")
	}
	if py := md.Get("py_interpreter_path"); py.IsString() && py.Str() != "" {
		b.WriteString("\n[Python interpreter: " + py.Str() + "]")
	}
	code := md.Get("exit_code")
	if isNumber(code) && code.Int() != -1 {
		b.WriteString("\n[Command finished with exit code " + strconv.FormatInt(code.Int(), 10) + "]")
	}
	return b.String()
}

// Record is one event seen on its own (ctxc grep): its message, or a Condensation's
// summary (the compaction record).
func Record(v jsonl.Value) conv.Record {
	kind := v.Get("kind").Str()
	if kind == "Condensation" {
		rec := conv.Record{Compaction: true}
		if s := v.Get("summary"); s.IsString() {
			rec.Messages = []conv.Message{summaryMessage(s, conv.SearchText)}
		}
		return rec
	}
	m, ok := message(v, kind, conv.SearchText)
	if !ok {
		return conv.Record{}
	}
	return conv.Record{Messages: []conv.Message{m}}
}

// ReadOnly says why ctxc never writes into an OpenHands conversation (its event files are the
// SDK's); a compaction is written with -o, as a ctxc-format file.
const ReadOnly = "is an OpenHands conversation, which ctxc only reads"

// isNumber reports whether v is a JSON number.
func isNumber(v jsonl.Value) bool {
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}

// LineTypes tell a session ctxc exports from OpenHands's files by its header line.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}}

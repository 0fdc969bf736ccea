// Package codex is ctxc's code for Codex's sessions: their reader, the decoder of one line and
// the writer of a compaction (a new session from messages stays with the handoff rendering, in
// internal/transcript).
package codex

import (
	"fmt"
	"hash/maphash"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads OpenAI Codex CLI rollouts (docs/formats.md) of all three eras: bare (line 1
// {"id","timestamp","instructions",...}, then bare response items and {"record_type":"state"}),
// wrapped ({"timestamp","type","payload"}) and 2026 (wrapped plus "ordinal", world_state,
// base_instructions).
//
// Conversation: the response items (wrapped "response_item" payloads, or bare item lines):
//   - message (role user/assistant/developer/system; input_text, output_text, input_image);
//   - function_call / custom_tool_call / local_shell_call → an assistant tool call (Args: the
//     arguments JSON string, the custom tool's raw input, the local_shell action);
//   - function_call_output / custom_tool_call_output (and any other item with call_id+output)
//     → a tool message with one tool result;
//   - reasoning → assistant thinking, counting only readable summary[].text and content[].text,
//     never encrypted_content; web_search_call → an assistant opaque block counting its action;
//   - compaction / compaction_summary → a user summary message with one opaque block (encrypted:
//     0 chars).
//
// Consecutive assistant-side items (reasoning, calls, assistant text) are one model response:
// they are counted as one assistant message and share one MsgID so that Result.Messages merges
// them (an OpenAI-valid shape: one assistant message with all its tool calls before the results).
// An item that yields no block (a reasoning item with neither summary nor content) is no message.
//
// Metadata: session_meta (and the bare first line; instructions and base_instructions are not
// counted: they are not history items), turn_context, world_state, inter_agent_communication*,
// record_type:"state", ghost_snapshot, every event_msg. Recorded usage: each event_msg
// token_count's info.last_token_usage is one response (info:null, a rate-limit-only event, is
// skipped; a repeat whose total_token_usage did not change is not counted again); the window
// comes from token_count.info.model_context_window or task_started.model_context_window.
//
// Duplicates not counted: event_msg user_message, agent_message, agent_reasoning (copies of
// response items); replacement_history items (copies of earlier history, see below). A
// compacted record adds its summary text (message, when not empty) to the history as one user
// message, and counts as a compaction.
//
// Reload rule (codex-rs rollout_reconstruction): history is replayed forward. A compacted record
// with replacement_history replaces the whole history with those items (one conv.Ref, selector
// codexSelReplacement). A legacy compacted record (message only) rebuilds the history as the
// initial context (here: the session's leading developer/system/injected-user messages as
// recorded), then the real user messages of the history so far as plain text (newest first
// within 20,000 estimated tokens, the oldest selected one truncated to fit, then put back in
// order), then one user message holding the summary (Summary:true). Every later response item
// is appended. event_msg thread_rolled_back{num_turns} drops the last num_turns user turns.
//
// Simplifications (docs/formats.md): the initial context is the recorded leading messages, not
// the one Codex would build from the current config; user messages inside a replacement_history base
// are neither collected by a later legacy compaction nor cut by a rollback; truncation keeps the
// first budget×4 code points (Codex keeps head and tail with a marker); tokens are chars/4 of
// code points (Codex: bytes/4); a real user message is one whose text does not start with '<'
// or "# AGENTS.md instructions" and is not a summary; forked rollouts that embed their parent's
// history are read as one history.
type reader struct {
	// recordOpen: the lines since the newest compacted line are still part of its compaction
	// (events, turn context, developer messages such as a hook's note), up to the first user
	// or assistant item: see CompactionRecord.
	recordOpen bool
	hist       []codexItem // current effective history, in order
	initial    []codexItem // leading injected-context messages (legacy rebuild)
	initDone   bool
	base       codexBase // the replacement_history item, when hist[0] is one
	run        codexRun  // stats: the assistant response being accumulated
	window     int
	seed       maphash.Seed
	lastTot    [2]int64 // total_token_usage (input, total) of the previous token_count
	haveTot    bool
}

// Selectors of codex refs.
const (
	codexSelItem        uint8 = iota // the line's response item
	codexSelReplacement              // the replacement_history of a compacted line
	codexSelSummary                  // a legacy compacted line's message, as a user summary message
	codexSelUserText                 // the line's user message as plain text, cut to tokens×4 code points
)

// codexTurnID is the MsgID shared by assistant-side items so that adjacent ones merge.
const codexTurnID = "codex:response"

// codexCompactUserBudget is Codex's COMPACT_USER_MESSAGE_MAX_TOKENS.
const codexCompactUserBudget = 20000

// SummaryPrefix opens Codex's local compaction summaries (SUMMARY_PREFIX).
const SummaryPrefix = "Another language model started to solve this problem"

type codexKind uint8

const (
	cxOther codexKind = iota // developer/system/injected user messages, tool results, summaries
	cxAsst                   // assistant-side: merges with adjacent assistant-side items
	cxUser                   // a real user message
	cxBase                   // a replacement_history base
)

type codexItem struct {
	r         conv.Ref
	chars     int64 // code points of the message
	imgs      int32
	kind      codexKind
	textChars int64  // cxUser: code points of its plain-text form (legacy rebuild)
	call      uint64 // hash of the call id of a tool call item (0: none)
	result    uint64 // hash of the call id a tool output answers (0: none)
}

// codexBase holds what a replacement_history ref yields, computed when it is read.
type codexBase struct {
	tokens, msgs int32
	tail         codexTokenRun // merge state after its last message
	open         []uint64      // hashes of the calls it leaves without an output
}

// codexTokenRun mirrors mergeSplitAssistant: a run of adjacent assistant-side messages is one
// message whose tokens are ceil(total chars/4) + images; each item is charged the increase it
// causes, so that the refs' tokens add up to the merged messages' Tokens().
type codexTokenRun struct {
	active      bool
	chars, imgs int64
	tok         int64
}

func codexRunTokens(chars, imgs int64) int64 {
	return int64(estimate.FromChars(int(chars))) + imgs*estimate.ImageTokens
}

// add charges one emitted message; asst tells whether it merges with an adjacent assistant one.
func (t *codexTokenRun) add(asst bool, chars, imgs int64) (tokens int64, newMsg bool) {
	if asst && t.active {
		t.chars += chars
		t.imgs += imgs
		n := codexRunTokens(t.chars, t.imgs)
		d := n - t.tok
		t.tok = n
		return d, false
	}
	n := codexRunTokens(chars, imgs)
	*t = codexTokenRun{active: asst, chars: chars, imgs: imgs, tok: n}
	return n, true
}

// codexRun accumulates one assistant response (adjacent assistant-side items) for the history
// statistics without keeping its blocks.
type codexRun struct {
	active bool
	line   int
	chars  [conv.BlockOpaque + 1]int
	has    [conv.BlockOpaque + 1]bool
	calls  int
	images int
}

func newReader() *reader { return &reader{seed: maphash.MakeSeed()} }

// NewReader is a reader of one Codex session.
func NewReader() conv.Reader { return newReader() }

// callKeys hashes the call ids of a message's tool calls and results (one of each at most per
// response item).
func (r *reader) callKeys(m *conv.Message) (call, result uint64) {
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockToolCall:
			call = maphash.String(r.seed, b.ID) | 1
		case conv.BlockToolResult:
			result = maphash.String(r.seed, b.ID) | 1
		}
	}
	return call, result
}

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	typ, payload, state := codexEnvelope(v)
	r.trackRecord(l, typ, payload, st)
	if payload.Exists() && ItemTypes[typ] {
		switch typ {
		case "response_item":
			r.addItem(l, payload, st)
		case "compacted":
			r.addCompacted(l, payload, st)
		case "event_msg":
			r.addEvent(payload, st)
		}
		return
	}
	if typ == "" || state {
		return // bare-era session line or state record
	}
	r.addItem(l, v, st) // bare-era response item
}

// trackRecord extends the newest compaction record over line l, until the first response item
// that is not a developer message (or the next compaction).
func (r *reader) trackRecord(l *conv.Line, typ string, payload jsonl.Value, st *conv.Stats) {
	if !r.recordOpen {
		return
	}
	if typ == "compacted" || typ == "response_item" && !(payload.Get("type").Str() == "message" && payload.Get("role").Str() == "developer") {
		r.recordOpen = false
		return
	}
	st.ExtendRecord(l)
}

// codexEnvelope reads a line's type, payload and whether it is a bare-era state record.
func codexEnvelope(v jsonl.Value) (typ string, payload jsonl.Value, state bool) {
	v.Each(func(k string, val jsonl.Value) bool {
		switch k {
		case "type":
			typ = val.Str()
		case "payload":
			payload = val
		case "record_type":
			state = true
		}
		return true
	})
	return typ, payload, state
}

// codexItemOf finds the response item of a line: the payload of a wrapped line, else the line.
func codexItemOf(v jsonl.Value) jsonl.Value {
	if typ, p, _ := codexEnvelope(v); p.Exists() && ItemTypes[typ] {
		return p
	}
	return v
}

func (r *reader) addItem(l *conv.Line, it jsonl.Value, st *conv.Stats) {
	m, kind := codexItemMessage(it, conv.NoText)
	if len(m.Blocks) == 0 {
		return
	}
	m.Line = l.Num
	if kind == cxAsst {
		r.run.add(&m)
	} else {
		r.flushRun(st)
		st.CountMessage(&m)
	}
	ci := codexItem{r: codexLineRef(l, codexSelItem), chars: int64(m.Chars()), imgs: int32(m.Images()), kind: kind}
	ci.call, ci.result = r.callKeys(&m)
	if kind == cxUser {
		_, n := codexUserText(it.Get("content"), conv.NoText)
		ci.textChars = int64(n)
	}
	r.hist = append(r.hist, ci)
	if !r.initDone {
		if kind == cxOther && !m.Summary && (m.Role == conv.RoleDeveloper || m.Role == conv.RoleSystem || m.Role == conv.RoleUser) {
			// Codex sends a fresh environment context with each new turn; a legacy rebuild
			// keeps the other injected messages but not the recorded environment (checked
			// with Codex 0.169 through resume.sh).
			if !codexEnvironment(it.Get("content")) {
				r.initial = append(r.initial, ci)
			}
		} else {
			r.initDone = true
		}
	}
}

func codexLineRef(l *conv.Line, sel uint8) conv.Ref {
	return conv.Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Sel: sel}
}

func (r *reader) addCompacted(l *conv.Line, p jsonl.Value, st *conv.Stats) {
	st.Compactions++
	st.AddRecord(l)
	r.recordOpen = true
	r.flushRun(st)
	var msg, rh jsonl.Value
	p.Each(func(k string, v jsonl.Value) bool {
		switch k {
		case "message":
			msg = v
		case "replacement_history":
			rh = v
		}
		return true
	})
	if msg.IsString() && msg != `""` {
		// The summary text is new content (a remote compaction leaves it empty: its summary is
		// the opaque compaction item).
		sm := codexSummaryMessage(msg, conv.NoText)
		sm.Line = l.Num
		st.CountMessage(&sm)
	}
	if rh.IsArray() {
		var b codexBase
		var calls []uint64
		answered := map[uint64]bool{}
		rh.Each(func(_ string, it jsonl.Value) bool {
			m, kind := codexItemMessage(it, conv.NoText)
			if len(m.Blocks) == 0 {
				return true
			}
			if c, res := r.callKeys(&m); c != 0 {
				calls = append(calls, c)
			} else if res != 0 {
				answered[res] = true
			}
			tok, newMsg := b.tail.add(kind == cxAsst, int64(m.Chars()), int64(m.Images()))
			b.tokens += int32(tok)
			if newMsg {
				b.msgs++
			}
			return true
		})
		for _, c := range calls {
			if !answered[c] {
				b.open = append(b.open, c)
			}
		}
		r.base = b
		r.hist = append(r.hist[:0], codexItem{r: codexLineRef(l, codexSelReplacement), kind: cxBase})
		return
	}
	// Legacy: initial context + recent real user messages (plain text) + summary.
	var sel []codexItem
	remaining := int64(codexCompactUserBudget)
	for i := len(r.hist) - 1; i >= 0 && remaining > 0; i-- {
		it := r.hist[i]
		if it.kind != cxUser || it.textChars == 0 {
			continue
		}
		tok := int64(estimate.FromChars(int(it.textChars)))
		u := codexItem{r: it.r, kind: cxUser, textChars: it.textChars}
		u.r.Sel = codexSelUserText
		if tok > remaining {
			u.textChars = remaining * estimate.CharsPerToken
			tok = remaining
		}
		u.chars = u.textChars
		remaining -= tok
		sel = append(sel, u)
	}
	hist := make([]codexItem, 0, len(r.initial)+len(sel)+1)
	hist = append(hist, r.initial...)
	for i := len(sel) - 1; i >= 0; i-- {
		hist = append(hist, sel[i])
	}
	sm := codexSummaryMessage(msg, conv.NoText)
	hist = append(hist, codexItem{r: codexLineRef(l, codexSelSummary), chars: int64(sm.Chars()), kind: cxOther})
	r.hist = hist
}

func (r *reader) addEvent(v jsonl.Value, st *conv.Stats) {
	p := gjson.Parse(string(v)) // small, rare lines except token_count
	switch p.Get("type").String() {
	case "token_count":
		info := p.Get("info")
		if !info.IsObject() {
			return // rate-limit-only event (info:null)
		}
		if w := info.Get("model_context_window").Int(); w > 0 {
			r.window = int(w)
		}
		r.tokenCount(info, st)
	case "task_started":
		if w := p.Get("model_context_window").Int(); w > 0 {
			r.window = int(w)
		}
	case "thread_rolled_back":
		r.rollback(p.Get("num_turns").Int())
	}
}

// tokenCount records one response's usage from info.last_token_usage. Codex's input_tokens
// includes cached_input_tokens, so Input is the uncached part, CacheRead the cached one and the
// last context is input_tokens. Codex may report the same response twice (the cumulative
// total_token_usage does not change): such a repeat only refreshes the last context.
func (r *reader) tokenCount(info gjson.Result, st *conv.Stats) {
	last := info.Get("last_token_usage")
	if !last.IsObject() {
		return
	}
	in := last.Get("input_tokens").Int()
	cached := last.Get("cached_input_tokens").Int()
	u := conv.Usage{Input: int(max(in-cached, 0)), CacheRead: int(cached), Output: int(last.Get("output_tokens").Int())}
	if total := info.Get("total_token_usage"); total.IsObject() {
		tot := [2]int64{total.Get("input_tokens").Int(), total.Get("total_tokens").Int()}
		if r.haveTot && tot == r.lastTot && tot != [2]int64{} {
			st.Usage.LastContext = u.Input + u.CacheRead + u.CacheWrite
			return
		}
		r.lastTot, r.haveTot = tot, true
	}
	st.CountUsage("", u, true)
}

// rollback drops the last n user turns: the history is cut at the n-th last real user message
// (all of them when n exceeds their number); nothing happens without user messages.
func (r *reader) rollback(n int64) {
	if n <= 0 {
		return
	}
	var pos []int
	for i, it := range r.hist {
		if it.kind == cxUser {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 {
		return
	}
	cut := pos[0]
	if n < int64(len(pos)) {
		cut = pos[len(pos)-int(n)]
	}
	r.hist = r.hist[:cut]
}

func (c *codexRun) add(m *conv.Message) {
	if !c.active {
		*c = codexRun{active: true, line: m.Line}
	}
	for _, b := range m.Blocks {
		c.chars[b.Kind] += b.Chars
		c.has[b.Kind] = true
		if b.Kind == conv.BlockToolCall {
			c.calls++
		}
		if b.Kind == conv.BlockImage {
			c.images++
		}
		c.images += b.Images
	}
}

// flushRun counts the accumulated assistant response as one message: one block per kind, the
// tool-call count corrected afterwards.
func (r *reader) flushRun(st *conv.Stats) {
	c := &r.run
	if !c.active {
		return
	}
	m := conv.Message{Role: conv.RoleAssistant, Line: c.line}
	for k := conv.BlockText; k <= conv.BlockOpaque; k++ {
		if !c.has[k] || k == conv.BlockImage {
			continue
		}
		m.Blocks = append(m.Blocks, conv.Block{Kind: k, Chars: c.chars[k]})
	}
	if c.images > 0 {
		m.Blocks = append(m.Blocks, conv.Block{Kind: conv.BlockImage, Images: c.images - 1})
	}
	st.CountMessage(&m)
	if c.calls > 1 {
		st.ToolCalls += c.calls - 1
	}
	*c = codexRun{}
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	r.flushRun(st)
	st.Format = conv.FormatCodex
	if r.window > 0 {
		if st.Usage == nil {
			st.Usage = &conv.RecordedUsage{}
		}
		st.Usage.ContextWindow = r.window
	}
	refs := make([]conv.Ref, 0, len(r.hist))
	var run codexTokenRun
	// Calls left without an output are answered on load (FinishContext): one more message of
	// AbortedOutput each, charged to the ref that holds the call.
	answered := map[uint64]bool{}
	for _, it := range r.hist {
		if it.result != 0 {
			answered[it.result] = true
		}
	}
	abortedTokens := int32(estimate.FromChars(len(AbortedOutput)))
	for _, it := range r.hist {
		rf := it.r
		if it.kind == cxBase {
			rf.Tokens, rf.Msgs = r.base.tokens, r.base.msgs
			run = r.base.tail
			for _, c := range r.base.open {
				if !answered[c] {
					answered[c] = true
					rf.Tokens += abortedTokens
					rf.Msgs++
				}
			}
		} else {
			tok, newMsg := run.add(it.kind == cxAsst, it.chars, int64(it.imgs))
			rf.Tokens = int32(tok)
			if newMsg {
				rf.Msgs = 1
			}
			if it.call != 0 && !answered[it.call] {
				answered[it.call] = true
				rf.Tokens += abortedTokens
				rf.Msgs++
			}
		}
		refs = append(refs, rf)
	}
	return refs
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	item := codexItemOf(jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)) // as add sees it: from the first { on
	line := x.LineNum()
	switch x.Sel {
	case codexSelReplacement:
		rh := item.Get("replacement_history")
		if !rh.IsArray() {
			return nil, fmt.Errorf("compacted record without replacement_history")
		}
		var out []conv.Message
		k := int32(0)
		rh.Each(func(_ string, it jsonl.Value) bool {
			k++
			m, kind := codexItemMessage(it, conv.WithText)
			if len(m.Blocks) == 0 {
				return true
			}
			m.Line = line
			m.Src = []conv.SrcRef{{Line: int32(line), Item: k}}
			if kind == cxAsst {
				m.MsgID = codexTurnID
			}
			out = append(out, m)
			return true
		})
		return out, nil
	case codexSelSummary:
		m := codexSummaryMessage(item.Get("message"), conv.WithText)
		m.Line = line
		m.Src = []conv.SrcRef{{Line: int32(line), Item: conv.SrcSynthesized}}
		return []conv.Message{m}, nil
	case codexSelUserText:
		s, n := codexUserText(item.Get("content"), conv.WithText)
		if limit := int(x.Tokens) * estimate.CharsPerToken; n > limit {
			s, n = codexTruncate(s, limit), limit
		}
		return []conv.Message{{Role: conv.RoleUser, Line: line, Src: []conv.SrcRef{{Line: int32(line), Item: conv.SrcSynthesized}},
			Blocks: []conv.Block{{Kind: conv.BlockText, Text: s, Chars: n}}}}, nil
	}
	m, kind := codexItemMessage(item, conv.WithText)
	if len(m.Blocks) == 0 {
		return nil, fmt.Errorf("not a conversation item")
	}
	m.Line = line
	if kind == cxAsst {
		m.MsgID = codexTurnID
	}
	return []conv.Message{m}, nil
}

// codexTruncate keeps the first n code points of s.
func codexTruncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// codexSummaryMessage is the user message a legacy compaction puts into the history: the
// compacted message as written (it already starts with Codex's summary prefix).
func codexSummaryMessage(msg jsonl.Value, text conv.TextMode) conv.Message {
	var b conv.Block
	if msg.IsString() && msg != `""` {
		b = conv.TextBlockV(conv.BlockText, msg, text)
	} else {
		const none = "(no summary available)"
		b = conv.Block{Kind: conv.BlockText, Chars: estimate.Chars(none)}
		if text.On() {
			b.Text = none
		}
	}
	return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{b}}
}

// codexUserText is the plain-text form of a user message's content (Codex
// content_items_to_text): its non-empty text parts joined by newlines; chars counts its code
// points.
func codexUserText(content jsonl.Value, text conv.TextMode) (string, int) {
	if content.IsString() {
		if text.On() {
			return content.Str(), content.Chars()
		}
		return "", content.Chars()
	}
	var parts []string
	chars, n := 0, 0
	content.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "input_text", "output_text", "text":
			t := p.Get("text")
			if !t.IsString() || t == `""` {
				return true
			}
			if n > 0 {
				chars++
			}
			n++
			chars += t.Chars()
			if text.On() {
				parts = append(parts, t.Str())
			}
		}
		return true
	})
	if text.On() {
		return conv.JoinLines(parts), chars
	}
	return "", chars
}

// codexSummaryItem: a user message that holds a compaction summary, ctxc's or Codex's.
func codexSummaryItem(content jsonl.Value) bool {
	found := false
	content.Each(func(_ string, p jsonl.Value) bool {
		if t := p.Get("text"); t.IsString() && t != `""` {
			s := string(t[1:])
			found = strings.HasPrefix(s, conv.SummaryPreamble[:40]) || strings.HasPrefix(s, SummaryPrefix)
			return false
		}
		return true
	})
	return found
}

// codexEnvironment: an injected <environment_context> message.
func codexEnvironment(content jsonl.Value) bool {
	found := false
	content.Each(func(_ string, p jsonl.Value) bool {
		if t := p.Get("text"); t.IsString() && t != `""` {
			found = strings.HasPrefix(string(t), `"<environment_context>`)
			return false
		}
		return true
	})
	return found
}

// AbortedOutput is the output Codex records for a tool call that never got one when it
// resumes a session (an interrupted turn): the call is answered, not left open.
const AbortedOutput = "aborted"

// FinishContext answers the calls left open in the context as Codex does on resume: with an
// "aborted" output right after the response that made them.
func (r *reader) FinishContext(ms []conv.Message) []conv.Message {
	answered := map[string]bool{}
	open := 0
	for i := range ms {
		for _, b := range ms[i].Blocks {
			if b.Kind == conv.BlockToolResult {
				answered[b.ID] = true
			}
		}
	}
	for i := range ms {
		for _, b := range ms[i].Blocks {
			if b.Kind == conv.BlockToolCall && !answered[b.ID] {
				open++
			}
		}
	}
	if open == 0 {
		return ms
	}
	out := make([]conv.Message, 0, len(ms)+open)
	for _, m := range ms {
		out = append(out, m)
		for _, b := range m.Blocks {
			if b.Kind == conv.BlockToolCall && !answered[b.ID] {
				answered[b.ID] = true
				// Its line is the call's: the output stands for what that line left open.
				out = append(out, conv.Message{Role: conv.RoleTool, Line: m.Line, Src: []conv.SrcRef{{Line: int32(m.Line), Item: conv.SrcSynthesized}}, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: b.ID,
					Text: AbortedOutput, Chars: len(AbortedOutput)}}})
			}
		}
	}
	return out
}

// codexRealUser tells a message typed by the user from injected context (<environment_context>,
// <user_instructions>, AGENTS.md instructions) and from compaction summaries.
func codexRealUser(content jsonl.Value) bool {
	var first jsonl.Value
	if content.IsString() {
		first = content
	} else {
		content.Each(func(_ string, p jsonl.Value) bool {
			if t := p.Get("text"); t.IsString() && t != `""` {
				first = t
				return false
			}
			return true
		})
	}
	// Look at the raw text after the opening quote, skipping white space and its escapes, so
	// that a long message is not decoded.
	s := ""
	if first.IsString() {
		s = string(first[1:])
	}
	for {
		switch {
		case strings.HasPrefix(s, " "):
			s = s[1:]
			continue
		case strings.HasPrefix(s, `\n`), strings.HasPrefix(s, `\t`), strings.HasPrefix(s, `\r`):
			s = s[2:]
			continue
		}
		break
	}
	switch {
	case strings.HasPrefix(s, "<"), strings.HasPrefix(s, `\u003c`), strings.HasPrefix(s, `\u003C`),
		strings.HasPrefix(s, "# AGENTS.md instructions"), strings.HasPrefix(s, SummaryPrefix):
		return false
	}
	return true
}

// Record decodes one line of a Codex session on its own (grep, search).
func Record(v jsonl.Value) conv.Record {
	typ, payload, state := codexEnvelope(v)
	if payload.Exists() && ItemTypes[typ] {
		switch typ {
		case "response_item":
			return codexItemRecord(payload)
		case "compacted":
			rec := conv.Record{Compaction: true, Meta: conv.MetaOf(payload.Get("ctxc"))}
			if msg := payload.Get("message"); msg.IsString() && msg != `""` {
				rec.Messages = append(rec.Messages, codexSummaryMessage(msg, conv.SearchText))
			}
			payload.Get("replacement_history").Each(func(_ string, it jsonl.Value) bool {
				if m, _ := codexItemMessage(it, conv.SearchText); m.Summary && len(m.Blocks) > 0 {
					rec.Messages = append(rec.Messages, m) // the summary is new; the rest are copies
				}
				return true
			})
			return rec
		}
		return conv.Record{}
	}
	if typ == "" || state {
		return conv.Record{}
	}
	return codexItemRecord(v) // bare-era response item
}

func codexItemRecord(it jsonl.Value) conv.Record {
	m, _ := codexItemMessage(it, conv.SearchText)
	if len(m.Blocks) == 0 {
		return conv.Record{}
	}
	if m.Summary && it.Get("type").Str() != "message" {
		return conv.Record{Compaction: true, Messages: []conv.Message{m}} // an encrypted compaction item
	}
	return conv.Record{Messages: []conv.Message{m}}
}

// ItemTypes are the types of a Codex rollout's lines: the detection of its files and Record know
// them.
var ItemTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true,
	"turn_context": true, "compacted": true, "world_state": true,
	"inter_agent_communication": true, "inter_agent_communication_metadata": true}

// Package kimi is ctxc's code for Kimi Code CLI's sessions: their reader, the decoder of one
// line, the texts its reader adds and the line types that tell its sessions.
package kimi

import (
	"slices"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Format is the format's name, as --format takes it.
const Format conv.Format = agent.KimiCode

// reader reads one agent's log of Kimi Code CLI (2.1), <session>/agents/<agent>/wire.jsonl: one
// record a line, {"type",...,"time"}. The conversation is in "context.append_message" (a whole
// message: {"role","content":[parts],"toolCalls","origin":{"kind",...},"id"}) and
// "context.append_loop_event" (a step of the model's: "event" {"type": "step.begin",
// "content.part", "tool.call", "tool.result" or "step.end", "stepUuid", ...}); its own
// compaction is "context.apply_compaction", "context.clear" and "context.undo" cut it; every other
// record (llm.request, usage.record, profile.bind, agent.* events...) is bookkeeping.
//
// Reload rule (its contextMemory state, replayed from these records on resume, then projected
// into a request): a message is appended, or held back while a step's calls wait for their
// results; a step opens an assistant message its parts and calls join; a result answers a
// waiting call; a step ends (not when interrupted or failed) or the next begins: its calls still
// waiting get an "interrupted" result, an assistant message with no call and only blank content
// is dropped, and the held messages follow. A compaction keeps the user's own messages, then the
// summary and a note to continue (an older record without keptUserMessageCount: the summary,
// then the messages after the first compactedCount). The request leaves out blank texts and
// messages, opens at the first user message, and joins adjacent messages the user typed into one
// (texts joined by a blank line). A tool result is its output after a status line when it failed
// or is empty, its wall time before it for the shell, search and subagent tools, its note after.
//
// Simplifications (docs/formats.md): a compaction's user messages are kept whole where Kimi cuts
// them to 20,000 estimated tokens (keeping the oldest 2,000 and the newest, with a note between);
// adjacent typed messages are joined only when no other typed message of the file lies between
// their lines.
type reader struct {
	ctx      []*entry // the context so far
	open     *entry   // the step's assistant message, while the step is open
	openStep string
	hasCalls bool
	vacuous  bool
	pending  []call   // the open step's calls waiting for their results
	deferred []*entry // messages held back while calls wait
	typed    int32    // typed user messages so far (their ordinal)
}

// entry is one message of the context: its lines (an assistant message: its content parts'
// lines, then its calls'), what the undo, the compaction and the projection ask of it.
type entry struct {
	parts, calls []piece
	role         string
	kind         string // its origin's kind
	real         bool   // the user's own input: kept by a compaction
	anchor       bool   // a turn an undo takes back
	id, owner    string // its id; an injection's prompt
	ord          int32  // a typed message's ordinal, else -1
	chars        int    // an assistant message's characters so far
	counted      bool   // an assistant message: counted as a message
	text         int    // a typed message's characters of text (-1: it has none)
}

// piece is one line of a message: its ref, and what it adds to the message's estimate.
type piece struct {
	ref           conv.Ref
	chars, images int
}

func pieceOf(ref conv.Ref, ms []conv.Message) piece {
	p := piece{ref: ref}
	for i := range ms {
		p.chars += ms[i].Chars()
		p.images += ms[i].Images()
	}
	return p
}

// call is a call waiting for its result: its id, its tool's name, its line.
type call struct {
	id, name string
	ref      conv.Ref
}

// Selectors of a ref: what of its line Materialize reads.
const (
	selMessage      uint8 = iota // a context.append_message's message
	selPart                      // a content.part's part
	selCall                      // a tool.call
	selResult                    // a tool.result
	selResultTimed               // a tool.result with its wall time
	selInterrupted               // a tool.call's "interrupted" result
	selSummary                   // a compaction's summary
	selContinuation              // a compaction's note to continue
	selJoined                    // the typed messages of the lines it spans, joined
)

// NewReader is a reader of one Kimi Code CLI log.
func NewReader() conv.Reader { return &reader{vacuous: true} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	var typ, message, event jsonl.Value
	v.Each(func(k string, val jsonl.Value) bool { // (a key's first value, as Get and Materialize read it)
		switch {
		case k == "type" && typ == "":
			typ = val
		case k == "message" && message == "":
			message = val
		case k == "event" && event == "":
			event = val
		}
		return true
	})
	switch typ.Str() {
	case "context.append_message":
		if message.IsObject() {
			r.appendMessage(l, message, st)
		}
	case "context.append_loop_event":
		if event.IsObject() {
			r.loopEvent(l, event, st)
		}
	case "context.clear":
		r.reset()
		r.ctx = nil
	case "context.undo":
		r.undo(v.Get("count").Int())
	case "context.apply_compaction":
		r.compaction(l, v, st)
	case "usage.record":
		if u := v.Get("usage"); u.IsObject() {
			st.CountUsage("", usageOf(u), true)
		}
	}
}

func usageOf(u jsonl.Value) conv.Usage {
	return conv.Usage{Input: int(u.Get("inputOther").Int()), Output: int(u.Get("output").Int()),
		CacheRead: int(u.Get("inputCacheRead").Int()), CacheWrite: int(u.Get("inputCacheCreation").Int())}
}

// appendMessage adds a whole message, held back while calls wait.
func (r *reader) appendMessage(l *conv.Line, msg jsonl.Value, st *conv.Stats) {
	origin := msg.Get("origin")
	e := &entry{role: strings.Clone(msg.Get("role").Str()), kind: strings.Clone(origin.Get("kind").Str()),
		id: strings.Clone(msg.Get("id").Str()), owner: strings.Clone(origin.Get("ownerPromptId").Str()), ord: -1}
	trigger := origin.Get("trigger").Str()
	user := e.role == "user"
	e.real = user && (!origin.Exists() || e.kind == "user" ||
		((e.kind == "skill_activation" || e.kind == "plugin_command") && trigger == "user-slash"))
	e.anchor = e.real && !origin.Get("inTurn").Bool()
	if user && e.kind == "user" {
		e.ord = r.typed
		r.typed++
	}
	ms := messageOf(msg, conv.NoText)
	e.text = -1
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
		for _, b := range ms[i].Blocks {
			if b.Kind == conv.BlockText {
				e.text = max(e.text, 0) + b.Chars
			}
		}
	}
	ref := conv.RefOf(l, ms)
	ref.Sel = selMessage
	e.parts = []piece{pieceOf(ref, ms)}
	if len(r.pending) > 0 {
		r.deferred = append(r.deferred, e)
		return
	}
	r.ctx = append(r.ctx, e)
}

// loopEvent folds one event of a step.
func (r *reader) loopEvent(l *conv.Line, ev jsonl.Value, st *conv.Stats) {
	switch ev.Get("type").Str() {
	case "step.begin":
		r.settle()
		r.open = &entry{role: "assistant", ord: -1, text: -1}
		r.ctx = append(r.ctx, r.open)
		r.openStep = strings.Clone(ev.Get("uuid").Str())
		r.hasCalls, r.vacuous = false, true
	case "step.end":
		if f := ev.Get("finishReason").Str(); f == "interrupted" || f == "error" {
			return
		}
		r.settle()
		r.flush()
	case "content.part":
		if r.open == nil || ev.Get("stepUuid").Str() != r.openStep {
			return
		}
		r.stepLine(l, partMessage(ev, conv.NoText), selPart, st)
		r.vacuous = r.vacuous && vacuousPart(ev.Get("part"))
	case "tool.call":
		if r.open == nil || ev.Get("stepUuid").Str() != r.openStep {
			return
		}
		ref := r.stepLine(l, callMessage(ev, conv.NoText), selCall, st)
		r.pending = append(r.pending, call{id: strings.Clone(ev.Get("toolCallId").Str()), name: strings.Clone(ev.Get("name").Str()), ref: ref})
		r.hasCalls = true
	case "tool.result":
		r.result(l, ev, st)
	}
}

// stepLine adds a line of the open step to its assistant message (ms: none for a blank text).
func (r *reader) stepLine(l *conv.Line, ms []conv.Message, sel uint8, st *conv.Stats) conv.Ref {
	e := r.open
	ref := conv.RefOf(l, ms)
	ref.Sel = sel
	for i := range ms {
		m := &ms[i]
		m.Line = l.Num
		if !e.counted {
			st.CountMessage(m)
			e.counted = true
		} else {
			st.CountContinuation(m, e.chars)
		}
		e.chars += m.Chars()
	}
	if sel == selCall {
		e.calls = append(e.calls, pieceOf(ref, ms))
	} else {
		e.parts = append(e.parts, pieceOf(ref, ms))
	}
	return ref
}

// result answers a waiting call.
func (r *reader) result(l *conv.Line, ev jsonl.Value, st *conv.Stats) {
	id := ev.Get("toolCallId").Str()
	i := slices.IndexFunc(r.pending, func(c call) bool { return c.id == id })
	if i < 0 {
		return
	}
	name := r.pending[i].name
	r.pending = slices.Delete(r.pending, i, i+1)
	sel := selResult
	if wallTime(name) {
		sel = selResultTimed
	}
	ms := []conv.Message{resultMessage(ev, sel == selResultTimed, conv.NoText)}
	ms[0].Line = l.Num
	st.CountMessage(&ms[0])
	ref := conv.RefOf(l, ms)
	ref.Sel = sel
	r.ctx = append(r.ctx, &entry{role: "tool", parts: []piece{pieceOf(ref, ms)}, ord: -1, text: -1})
	r.flush()
}

// settle closes the open step: its waiting calls get an "interrupted" result; with no call and
// only blank content, its message is dropped.
func (r *reader) settle() {
	if r.open == nil {
		return
	}
	for _, c := range r.pending {
		ms := []conv.Message{interruptedMessage("", conv.NoText)}
		ref := conv.RefOf(&conv.Line{}, ms)
		ref.Off, ref.Size, ref.Line, ref.Sel = c.ref.Off, c.ref.Size, c.ref.Line, selInterrupted
		r.ctx = append(r.ctx, &entry{role: "tool", parts: []piece{pieceOf(ref, ms)}, ord: -1, text: -1})
	}
	r.pending = nil
	r.flush()
	if !r.hasCalls && r.vacuous {
		for i := len(r.ctx) - 1; i >= 0; i-- { // (the open step is near the end)
			if r.ctx[i] == r.open {
				r.ctx = slices.Delete(r.ctx, i, i+1)
				break
			}
		}
	}
	r.open, r.openStep = nil, ""
}

// flush adds the held messages once no call waits.
func (r *reader) flush() {
	if len(r.pending) > 0 || len(r.deferred) == 0 {
		return
	}
	r.ctx = append(r.ctx, r.deferred...)
	r.deferred = nil
}

// reset forgets the open step, its waiting calls and the held messages.
func (r *reader) reset() {
	r.open, r.openStep, r.hasCalls, r.vacuous = nil, "", false, true
	r.pending, r.deferred = nil, nil
}

// undo takes back the last count turns of the user's (and the injections of their prompts), not
// past a compaction's summary; when fewer are there, nothing.
func (r *reader) undo(count int64) {
	if count <= 0 {
		return
	}
	cut, removed := -1, int64(0)
	for i := len(r.ctx) - 1; i >= 0 && removed < count; i-- {
		e := r.ctx[i]
		if e.kind == "injection" {
			continue
		}
		if e.kind == "compaction_summary" {
			break
		}
		if e.role == "user" && e.anchor {
			removed++
			cut = i
			for cut > 0 && r.ctx[cut-1].kind == "injection" && r.ctx[cut-1].owner != "" && r.ctx[cut-1].owner == e.id {
				cut--
			}
		}
	}
	if cut < 0 || removed < count {
		return
	}
	r.ctx = r.ctx[:cut]
	r.reset()
}

// compaction replaces the context with what a context.apply_compaction keeps.
func (r *reader) compaction(l *conv.Line, v jsonl.Value, st *conv.Stats) {
	count := v.Get("compactedCount")
	if !isNumber(count) {
		count = v.Get("count")
	}
	summary, ok := summaryMessage(v, conv.NoText)
	if !isNumber(count) || !ok {
		return // (Kimi refuses such a record)
	}
	st.Compactions++
	st.AddRecord(l)
	summary.Line = l.Num
	st.CountMessage(&summary)
	ms := []conv.Message{summary}
	sum := conv.RefOf(l, ms)
	sum.Sel = selSummary
	sumEntry := &entry{role: "user", kind: "compaction_summary", parts: []piece{pieceOf(sum, ms)}, ord: -1, text: -1}
	var ctx []*entry
	if v.Get("legacyTail").Bool() || !isNumber(v.Get("keptUserMessageCount")) {
		n := min(max(int(count.Int()), 0), len(r.ctx))
		ctx = append([]*entry{sumEntry}, r.ctx[n:]...)
	} else {
		for _, e := range r.ctx {
			if e.real {
				ctx = append(ctx, e)
			}
		}
		note := []conv.Message{continuationMessage(conv.NoText)}
		next := conv.RefOf(l, note)
		next.Sel = selContinuation
		ctx = append(ctx, sumEntry, &entry{role: "user", kind: "injection", parts: []piece{pieceOf(next, note)}, ord: -1, text: -1})
	}
	r.ctx = ctx
	r.reset()
}

func isNumber(v jsonl.Value) bool {
	return v.Exists() && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// Finish settles the open step (as the next step of a resumed turn does) and gives the context
// as Kimi's request projects it: from the first user message; adjacent typed messages joined;
// adjacent assistant messages one (their lines share a MsgID).
func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = Format
	r.settle()
	r.flush()
	var out []conv.Ref
	started, assistant, run := false, false, 0 // run: chars of the assistant message so far
	for i := 0; i < len(r.ctx); i++ {
		e := r.ctx[i]
		if !started && e.role != "user" {
			continue
		}
		if j := r.typedRun(i); j > i+1 {
			out = append(out, joinedRef(r.ctx[i:j]))
			started, assistant, i = true, false, j-1
			continue
		}
		for _, p := range append(slices.Clip(e.parts), e.calls...) {
			ref := p.ref
			if ref.Msgs == 0 {
				continue
			}
			if e.role == "assistant" {
				if assistant {
					ref.Msgs = 0 // a further line of one message: merged into it (MsgID)
				} else {
					run = 0
				}
				ref.Tokens = int32(estimate.FromChars(run+p.chars) - estimate.FromChars(run) + p.images*estimate.ImageTokens)
				run += p.chars
			}
			assistant = e.role == "assistant"
			started = started || e.role == "user"
			out = append(out, ref)
		}
	}
	return out
}

// typedRun is the end of the run of adjacent typed user messages from i whose lines hold no
// other typed message (i+1: none to join).
func (r *reader) typedRun(i int) int {
	j := i
	for j < len(r.ctx) && r.ctx[j].ord >= 0 && r.ctx[j].parts[0].ref.Msgs > 0 && (j == i || r.ctx[j].ord == r.ctx[j-1].ord+1) {
		j++
	}
	return max(j, i+1)
}

// joinedRef spans the lines of typed messages es: Materialize joins them (their texts joined by a
// blank line, then their other parts).
func joinedRef(es []*entry) conv.Ref {
	first, last := es[0].parts[0].ref, es[len(es)-1].parts[0].ref
	ref := conv.Ref{Off: first.Off, Size: int32(last.Off + int64(last.Size) - first.Off), Line: first.Line, Msgs: 1, Sel: selJoined}
	chars, images, texts := 0, 0, 0
	for _, e := range es {
		p := e.parts[0]
		chars += p.chars
		images += p.images
		if e.text >= 0 {
			texts++
		}
	}
	chars += 2 * max(texts-1, 0)
	ref.Tokens = int32(estimate.FromChars(chars) + images*estimate.ImageTokens)
	return ref
}

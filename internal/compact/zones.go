package compact

import (
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// ZoneOptions say how much of a context is protected (docs/design.md §7).
type ZoneOptions struct {
	KeepHead       int // user turns kept at the start (default 1: the task)
	KeepTail       int // messages kept at the end (default 6)
	KeepTailTokens int // if > 0, keep at least this many tokens at the end instead of KeepTail messages
}

// Zones splits a context into a protected head, a middle to summarize and a protected tail:
// messages [0,HeadEnd) are the head, [HeadEnd,TailStart) the middle, [TailStart,len) the tail.
type Zones struct {
	HeadEnd   int
	TailStart int
	N         int
}

// MiddleLen is the number of messages to summarize.
func (z Zones) MiddleLen() int {
	if z.TailStart <= z.HeadEnd {
		return 0
	}
	return z.TailStart - z.HeadEnd
}

// PlanZones computes the zones.
//
// Head: the leading system/developer messages and everything up to and including the
// KeepHead-th user turn (a previous ctxc summary is never part of the head, so compacting again
// folds it into the new middle).
//
// Tail: the last KeepTail messages (or KeepTailTokens tokens), then moved back so that it
// starts at a turn boundary: never on a tool result, never after a call whose results it holds,
// and preferably at a user turn. It moves back to the nearest user turn when that costs at most
// as many messages again as the tail already has; otherwise it stops at the nearest assistant
// message that does not split a call from its results, so one long agentic turn cannot swallow
// the whole middle. The tail never includes a summary message.
func PlanZones(ms []transcript.Message, o ZoneOptions) Zones {
	n := len(ms)
	z := Zones{N: n}
	if o.KeepHead <= 0 {
		o.KeepHead = 1
	}
	if o.KeepTail <= 0 && o.KeepTailTokens <= 0 {
		o.KeepTail = 6
	}
	// Head.
	i := 0
	for i < n && (ms[i].Role == transcript.RoleSystem || ms[i].Role == transcript.RoleDeveloper) {
		i++
	}
	users := 0
	for i < n && users < o.KeepHead {
		if ms[i].Summary {
			break
		}
		if ms[i].IsUserTurn() {
			users++
		}
		i++
	}
	// Keep the head from ending between a call and its results.
	for i < n && i > 0 && !pairSafeCut(ms, i) && !ms[i].Summary {
		i++
	}
	z.HeadEnd = i

	// Tail.
	t := n
	if o.KeepTailTokens > 0 {
		tok := 0
		for t > 0 && tok < o.KeepTailTokens {
			t--
			tok += ms[t].Tokens()
		}
	} else {
		t = n - o.KeepTail
		if t < 0 {
			t = 0
		}
	}
	size := n - t
	// Move back to a pair-safe cut.
	for t > 0 && !pairSafeCut(ms, t) {
		t--
	}
	// Prefer a user turn within the allowance.
	if t < n && !ms[t].IsUserTurn() {
		for u := t; u >= 0 && t-u <= size; u-- {
			if ms[u].IsUserTurn() && pairSafeCut(ms, u) {
				t = u
				break
			}
		}
	}
	// Never take a summary into the tail.
	for k := t; k < n; k++ {
		if ms[k].Summary {
			t = k + 1
		}
	}
	for t < n && !pairSafeCut(ms, t) {
		t++
	}
	if t < z.HeadEnd {
		t = z.HeadEnd
	}
	z.TailStart = t
	return z
}

// pairSafeCut reports whether cutting before message i keeps every tool call with its results:
// message i is not (only) results, and no call before i is answered at or after i.
func pairSafeCut(ms []transcript.Message, i int) bool {
	if i <= 0 || i >= len(ms) {
		return true
	}
	if hasResult(&ms[i]) {
		return false
	}
	// Calls of the messages right before i must be answered before i. Results follow their
	// call closely, so looking back to the previous user turn is enough.
	open := map[string]bool{}
	for k := i - 1; k >= 0; k-- {
		m := &ms[k]
		for _, b := range m.Blocks {
			if b.Kind == transcript.BlockToolCall && b.ID != "" {
				open[b.ID] = true
			}
		}
		if m.IsUserTurn() {
			break
		}
	}
	if len(open) == 0 {
		return true
	}
	for k := i; k < len(ms); k++ {
		for _, b := range ms[k].Blocks {
			if b.Kind == transcript.BlockToolResult && open[b.ID] {
				return false
			}
		}
	}
	return true
}

func hasResult(m *transcript.Message) bool {
	for _, b := range m.Blocks {
		if b.Kind == transcript.BlockToolResult {
			return true
		}
	}
	return false
}

// HeadWatch guesses, while a file is still being read, where the middle zone will start: it is
// fed the messages in file order (Options.Observe) and calls found once with the byte offset
// of the line where PlanZones' head would end if the context were those messages. Work that
// needs the middle's start early (compaction's source hash) can begin on the guess and check it
// once PlanZones has decided.
type HeadWatch struct {
	keep  int
	users int
	done  bool
	found func(off int64)
}

// NewHeadWatch returns a watch for the head rule of o.
func NewHeadWatch(o ZoneOptions, found func(off int64)) *HeadWatch {
	if o.KeepHead <= 0 {
		o.KeepHead = 1
	}
	return &HeadWatch{keep: o.KeepHead, found: found}
}

// Observe takes the next message of the file, read from line l.
func (w *HeadWatch) Observe(m *transcript.Message, l *jsonl.Line) {
	switch {
	case w.done:
	case m.Summary: // a summary is never part of the head
		w.done = true
		w.found(l.Offset)
	case w.users < w.keep:
		if m.IsUserTurn() {
			w.users++
		}
	case !hasResult(m): // the head does not end between a call and its results
		w.done = true
		w.found(l.Offset)
	}
}

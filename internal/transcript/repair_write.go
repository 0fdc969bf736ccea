package transcript

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/tidwall/gjson"
)

// RepairResultText is the result ctxc repair gives a tool call whose result was never recorded.
const RepairResultText = "[ctxc repair] No result was recorded for this tool call (the session was interrupted or the result was lost)."

// RepairPlan is what ctxc repair appends to an agent's file so that every tool call of the
// context has its result right after it: the records, in the agent's own format.
type RepairPlan struct {
	Data         []byte // complete lines to append; nil: nothing to repair
	Placeholders int    // calls given RepairResultText as their result
	Moved        int    // results put back right after their call
	Dropped      int    // results without a call, left out
	Records      int    // records written
}

// repairCall is a call and what answers it after repair.
type repairCall struct {
	msg   int    // message of the call
	name  string // tool name
	typ   string // Codex: the call item's type
	moved []byte // the result block or record moved here (nil: a placeholder)
	ok    bool   // answered in place, right after its call
}

// PlanRepair computes the records that fix the pairing of calls and results in the context msgs
// (as LoadFile returned them) of a Claude Code, Codex or pi file: a call without a result gets
// RepairResultText right after it, a result that comes after other turns is moved right after
// its call, and a result without a call is left out. Claude Code and pi files get copies of the
// records from the first broken response on, with new ids, chained from that response's
// parent: the agent resumes the new branch, the old records stay as they are. A Codex file gets
// one compacted item whose replacement_history is the repaired context.
func PlanRepair(src *Source, f Format, msgs []Message, now time.Time) (RepairPlan, error) {
	calls := map[string]*repairCall{}
	var order []string
	drop := map[[2]int]bool{} // (message, block) of results left out of their place
	lastAsst := -1
	first := -1
	mark := func(i int) {
		if first < 0 || i < first {
			first = i
		}
	}
	var plan RepairPlan
	for i := range msgs {
		m := &msgs[i]
		if m.Role == RoleAssistant {
			lastAsst = i
		}
		// Codex's own "aborted" output for a call left open: at the end of the context it is
		// what Codex sends on resume after an interruption (kept); before later turns, a
		// placeholder for a lost result (written for real).
		synth := IsSynthesizedResult(m) && !OnlyResultsAfter(msgs, i)
		for j, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				if _, dup := calls[b.ID]; !dup {
					calls[b.ID] = &repairCall{msg: i, name: b.Name}
					order = append(order, b.ID)
				}
			case BlockToolResult:
				c, ok := calls[b.ID]
				switch {
				case synth: // Codex's own "aborted": a placeholder, written for real
					drop[[2]int{i, j}] = true
					if ok {
						mark(c.msg)
					}
				case !ok || c.ok || c.moved != nil:
					drop[[2]int{i, j}] = true
					plan.Dropped++
					mark(i)
				case c.msg == lastAsst:
					c.ok = true
				default:
					raw, err := resultRecord(src, f, m, b.ID)
					if err != nil {
						return RepairPlan{}, err
					}
					c.moved = raw
					drop[[2]int{i, j}] = true
					plan.Moved++
					mark(c.msg)
				}
			}
		}
	}
	for _, id := range order {
		if c := calls[id]; !c.ok {
			if c.moved == nil {
				plan.Placeholders++
			}
			mark(c.msg)
		}
	}
	if first < 0 {
		return RepairPlan{}, nil
	}
	w := &repairWrite{src: src, f: f, msgs: msgs, calls: calls, order: order, drop: drop, now: now, plan: &plan}
	var err error
	switch f {
	case FormatClaude, FormatPi:
		err = w.tree(first)
	case FormatCodex:
		err = w.codex()
	default:
		return RepairPlan{}, fmt.Errorf("%s: repair writes the records of Claude Code, Codex and pi files (this is %s): use ctxc load, which answers such calls in its output", src.Path, f)
	}
	return plan, err
}

// IsSynthesizedResult reports whether m is a result no record holds (Codex answers a call left
// open with "aborted" on resume).
func IsSynthesizedResult(m *Message) bool {
	return m.Role == RoleTool && len(m.Src) == 1 && m.Src[0].Item == SrcSynthesized
}

// OnlyResultsAfter reports whether nothing but tool results follows message i.
func OnlyResultsAfter(msgs []Message, i int) bool {
	for j := i + 1; j < len(msgs); j++ {
		if msgs[j].Role != RoleTool {
			return false
		}
	}
	return true
}

// resultRecord is what a moved result is made of: Claude Code, the tool_result block; Codex,
// the output item; pi, the toolResult entry.
func resultRecord(src *Source, f Format, m *Message, id string) ([]byte, error) {
	recs, err := src.Records(m)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r == nil {
			continue
		}
		switch f {
		case FormatClaude:
			var found []byte
			gjson.GetBytes(r, "message.content").ForEach(func(_, b gjson.Result) bool {
				if b.Get("type").String() == "tool_result" && b.Get("tool_use_id").String() == id {
					found = []byte(b.Raw)
					return false
				}
				return true
			})
			if found != nil {
				return found, nil
			}
		case FormatCodex:
			it := gjson.ParseBytes(r)
			if p := it.Get("payload"); p.IsObject() {
				it = p
			}
			if it.Get("call_id").String() == id {
				return []byte(it.Raw), nil
			}
		case FormatPi:
			if gjson.GetBytes(r, "message.toolCallId").String() == id {
				return r, nil
			}
		}
	}
	return nil, fmt.Errorf("%s:%d: the result of %q is not in the record", src.Path, m.Line, id)
}

// repairWrite is a repair being written: the context, what answers each of its calls and which
// results leave their place (as PlanRepair found them), and the plan the records go into.
type repairWrite struct {
	src   *Source
	f     Format
	msgs  []Message
	calls map[string]*repairCall
	order []string        // the calls' ids, in the order they were made
	drop  map[[2]int]bool // (message, block) of results left out of their place
	now   time.Time
	plan  *RepairPlan
}

// unanswered lists the calls of message i that have no result right after them, in order.
func (w *repairWrite) unanswered(i int) []string {
	var ids []string
	for _, id := range w.order {
		if c := w.calls[id]; c.msg == i && !c.ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// tree writes the copies for Claude Code and pi: the records from message first on, chained
// from the parent of that message's first record, each call followed by its result.
func (w *repairWrite) tree(first int) error {
	t, err := w.newTreeCopy(first)
	if err != nil {
		return err
	}
	for i := first; i < len(w.msgs); i++ {
		if err := t.copyMessage(i); err != nil {
			return err
		}
	}
	w.plan.Records = len(t.out)
	w.plan.Data = conv.Lines(t.out)
	return nil
}

// treeCopy is the new branch of a Claude Code or pi session being written: each record the
// child of the one before, under a fresh id.
type treeCopy struct {
	*repairWrite
	idKey, parentKey string          // the fields that chain the format's records
	parent           json.RawMessage // id of the record written last
	stamp            string          // timestamp of the records made anew
	out              [][]byte
	uuids            map[string]string // original id → copy's
	msgIDs           map[string]string // Claude Code: original message.id → copy's
}

// newTreeCopy starts the branch at the parent of message first's first record, so that the
// agent resumes the copies instead of the records they repair.
func (w *repairWrite) newTreeCopy(first int) (*treeCopy, error) {
	t := &treeCopy{repairWrite: w, idKey: "uuid", parentKey: "parentUuid", stamp: conv.RFC3339ms(w.now),
		uuids: map[string]string{}, msgIDs: map[string]string{}}
	if w.f == FormatPi {
		t.idKey, t.parentKey = "id", "parentId"
	}
	m := &w.msgs[first]
	startRecs, err := w.src.Records(m)
	if err != nil || len(startRecs) == 0 || startRecs[0] == nil {
		return nil, fmt.Errorf("%s:%d: cannot read the record the repair starts from: %v", w.src.Path, m.Line, err)
	}
	start, err := conv.ParseObject(startRecs[0])
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", w.src.Path, m.Line, err)
	}
	if w.f == FormatPi && start.Str("id") == "" {
		return nil, fmt.Errorf("%s: a pi v1 session (entries without ids) cannot be repaired by appending", w.src.Path)
	}
	if t.parent = start.Get(t.parentKey); t.parent == nil {
		t.parent = json.RawMessage("null")
	}
	return t, nil
}

// copyMessage copies the records of message i, less the results moved or left out, then
// answers the calls of an assistant message that have no result right after them.
func (t *treeCopy) copyMessage(i int) error {
	m := &t.msgs[i]
	recs, err := t.src.Records(m)
	if err != nil {
		return err
	}
	var last *object
	for _, r := range recs {
		if r == nil {
			continue
		}
		o, err := t.withoutDropped(r, m, i)
		if err != nil {
			return err
		}
		if o == nil {
			continue // every result of the record moved or left out
		}
		t.emit(o)
		last = o
	}
	if m.Role != RoleAssistant || last == nil {
		return nil
	}
	for _, id := range t.unanswered(i) {
		if err := t.answer(last, id); err != nil {
			return err
		}
	}
	return nil
}

// withoutDropped is the record r of message i without the results left out of their place; nil
// when nothing of it is left.
func (t *treeCopy) withoutDropped(r []byte, m *Message, i int) (*object, error) {
	o, err := conv.ParseObject(r)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", t.src.Path, m.Line, err)
	}
	keep, changed := keptBlocks(t.f, r, m, i, t.drop)
	if !changed {
		return o, nil
	}
	if keep == nil {
		return nil, nil
	}
	msg, err := conv.ParseObject(o.Get("message"))
	if err != nil {
		return nil, err
	}
	msg.Set("content", keep)
	o.Set("message", json.RawMessage(msg.Encode()))
	return o, nil
}

// emit appends the copy o under a fresh id, as the child of the record written last. Claude
// Code copies are a response of their own: their message id is renamed, and their link to the
// response whose call they answer follows that response's copy.
func (t *treeCopy) emit(o *object) {
	id := t.newID()
	if old := o.Str(t.idKey); old != "" {
		t.uuids[old] = id
	}
	if t.f == FormatClaude {
		if a := o.Str("sourceToolAssistantUUID"); a != "" {
			if n, ok := t.uuids[a]; ok {
				o.Set("sourceToolAssistantUUID", n)
			}
		}
		claude.RenameMessageID(o, t.msgIDs)
	}
	o.Set(t.idKey, id)
	o.Set(t.parentKey, t.parent)
	o.Del("logicalParentUuid")
	t.parent, _ = conv.Marshal(id)
	t.out = append(t.out, o.Encode())
}

// newID is a fresh record id in the format's shape: a UUID for Claude Code, hex digits for pi.
func (t *treeCopy) newID() string {
	const piEntryIDDigits = 8
	if t.f == FormatPi {
		return newHexID(piEntryIDDigits)
	}
	return conv.NewUUID()
}

// answer appends the result of call id right after the response after (its last record): the
// result moved from later in the session, or RepairResultText as an error.
func (t *treeCopy) answer(after *object, id string) error {
	c := t.calls[id]
	if t.f != FormatPi {
		t.emit(t.claudeResult(after, id, c))
		return nil
	}
	if c.moved == nil {
		t.emit(t.piPlaceholder(id, c))
		return nil
	}
	o, err := conv.ParseObject(c.moved)
	if err != nil {
		return err
	}
	t.emit(o)
	return nil
}

// piPlaceholder is a toolResult entry answering call id with RepairResultText, as an error.
func (t *treeCopy) piPlaceholder(id string, c *repairCall) *object {
	o := conv.NewObject()
	o.Set("type", "message")
	o.Set("id", "")
	o.Set("parentId", nil)
	o.Set("timestamp", t.stamp)
	o.Set("message", map[string]any{"role": "toolResult", "toolCallId": id, "toolName": c.name,
		"content": []any{map[string]any{"type": "text", "text": RepairResultText}}, "isError": true, "timestamp": t.now.UnixMilli()})
	return o
}

// claudeResult is a user record, in the envelope of the response after, holding the result of
// call id: the block moved from later in the session, or RepairResultText as an error.
func (t *treeCopy) claudeResult(after *object, id string, c *repairCall) *object {
	o := conv.NewObject()
	o.Set("parentUuid", nil)
	o.Set("isSidechain", false)
	for _, k := range claude.Envelope {
		if v := after.Get(k); v != nil {
			o.Set(k, v)
		}
	}
	o.Set("type", "user")
	block := c.moved
	if block == nil {
		block, _ = conv.Marshal(map[string]any{"type": "tool_result", "tool_use_id": id, "content": RepairResultText, "is_error": true})
	}
	o.Set("message", map[string]any{"role": "user", "content": []json.RawMessage{block}})
	o.Set("uuid", "")
	o.Set("timestamp", t.stamp)
	return o
}

// keptBlocks returns the content blocks of a record without the results dropped from their
// place; changed is false when none was. pi: a toolResult entry is kept or dropped whole
// (keep nil).
func keptBlocks(f Format, rec []byte, m *Message, i int, drop map[[2]int]bool) (keep []json.RawMessage, changed bool) {
	ids := map[string]bool{}
	for j, b := range m.Blocks {
		if b.Kind == BlockToolResult && drop[[2]int{i, j}] {
			ids[b.ID] = true
		}
	}
	if len(ids) == 0 {
		return nil, false
	}
	if f == FormatPi {
		if ids[gjson.GetBytes(rec, "message.toolCallId").String()] {
			return nil, true
		}
		return nil, false
	}
	content := gjson.GetBytes(rec, "message.content")
	if !content.IsArray() {
		return nil, false
	}
	content.ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "tool_result" && ids[b.Get("tool_use_id").String()] {
			changed = true
			return true
		}
		keep = append(keep, json.RawMessage(b.Raw))
		return true
	})
	if changed && len(keep) == 0 {
		return nil, true
	}
	return keep, changed
}

// codex writes one compacted item whose replacement_history is the repaired context: Codex
// resumes from it, leaving the items before it out.
func (w *repairWrite) codex() error {
	var items []json.RawMessage
	for i := range w.msgs {
		its, err := w.codexItems(i)
		if err != nil {
			return err
		}
		items = append(items, its...)
		if w.msgs[i].Role == RoleAssistant {
			items = append(items, w.codexAnswers(i)...)
		}
	}
	line, err := conv.Marshal(map[string]any{"timestamp": conv.RFC3339ms(w.now), "type": "compacted",
		"payload": map[string]any{"message": "", "replacement_history": items}})
	if err != nil {
		return err
	}
	w.plan.Records = 1
	w.plan.Data = append(line, '\n')
	return nil
}

// codexItems is message i as replacement_history items: its own items less the results left
// out of their place. It notes the type of each call, which its output's type follows.
func (w *repairWrite) codexItems(i int) ([]json.RawMessage, error) {
	m := &w.msgs[i]
	recs, err := w.src.Records(m)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	for k, r := range recs {
		var it gjson.Result
		if r != nil {
			it = gjson.ParseBytes(r)
			if p := it.Get("payload"); p.IsObject() && it.Get("type").String() == "response_item" {
				it = p
			}
		}
		if r == nil || !it.IsObject() {
			// A message Codex makes up on resume (the "aborted" output of a call left open
			// is handled in codexAnswers); a rebuilt user message is written as one.
			if m.Role == RoleTool {
				continue
			}
			b, _ := conv.Marshal(map[string]any{"type": "message", "role": string(m.Role),
				"content": []any{map[string]any{"type": "input_text", "text": m.TextContent()}}})
			items = append(items, b)
			continue
		}
		cid := it.Get("call_id").String()
		if cid != "" && m.Role == RoleTool && k < len(m.Blocks) && w.drop[[2]int{i, k}] {
			continue
		}
		items = append(items, json.RawMessage(it.Raw))
		if c := w.calls[cid]; cid != "" && m.Role == RoleAssistant && c != nil {
			c.typ = it.Get("type").String()
		}
	}
	return items, nil
}

// codexAnswers are the outputs of the calls of message i that have no result right after them:
// the output moved from later in the session, or RepairResultText in the output type of the
// call's type.
func (w *repairWrite) codexAnswers(i int) []json.RawMessage {
	var items []json.RawMessage
	for _, id := range w.unanswered(i) {
		c := w.calls[id]
		if c.moved != nil {
			items = append(items, c.moved)
			continue
		}
		typ := "function_call_output"
		if c.typ == "custom_tool_call" {
			typ = "custom_tool_call_output"
		}
		b, _ := conv.Marshal(map[string]any{"type": typ, "call_id": id, "output": RepairResultText})
		items = append(items, b)
	}
	return items
}

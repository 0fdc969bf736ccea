package transcript

import (
	"encoding/json"
	"fmt"
	"time"

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
	switch f {
	case FormatClaude, FormatPi:
		return plan, repairTree(src, f, msgs, first, calls, order, drop, now, &plan)
	case FormatCodex:
		return plan, repairCodex(src, msgs, calls, order, drop, now, &plan)
	}
	return RepairPlan{}, fmt.Errorf("%s: repair writes the records of Claude Code, Codex and pi files (this is %s): use ctxc load, which answers such calls in its output", src.Path, f)
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
	recs, err := src.records(m)
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

// repairTree writes the copies for Claude Code and pi.
func repairTree(src *Source, f Format, msgs []Message, first int, calls map[string]*repairCall, order []string, drop map[[2]int]bool, now time.Time, plan *RepairPlan) error {
	idKey, parentKey := "uuid", "parentUuid"
	if f == FormatPi {
		idKey, parentKey = "id", "parentId"
	}
	startRecs, err := src.records(&msgs[first])
	if err != nil || len(startRecs) == 0 || startRecs[0] == nil {
		return fmt.Errorf("%s:%d: cannot read the record the repair starts from: %v", src.Path, msgs[first].Line, err)
	}
	start, err := parseObject(startRecs[0])
	if err != nil {
		return fmt.Errorf("%s:%d: %w", src.Path, msgs[first].Line, err)
	}
	if f == FormatPi && start.str("id") == "" {
		return fmt.Errorf("%s: a pi v1 session (entries without ids) cannot be repaired by appending", src.Path)
	}
	parent := start.get(parentKey)
	if parent == nil {
		parent = json.RawMessage("null")
	}
	var out [][]byte
	uuids := map[string]string{}  // original id → copy's
	msgIDs := map[string]string{} // Claude Code: original message.id → copy's
	emit := func(o *object) {
		id := newUUID()
		if f == FormatPi {
			id = newHexID(8)
		}
		if old := o.str(idKey); old != "" {
			uuids[old] = id
		}
		if f == FormatClaude {
			// The copies are a response of their own.
			if a := o.str("sourceToolAssistantUUID"); a != "" {
				if n, ok := uuids[a]; ok {
					o.set("sourceToolAssistantUUID", n)
				}
			}
			claudeRenameMessageID(o, msgIDs)
		}
		o.set(idKey, id)
		o.set(parentKey, parent)
		o.del("logicalParentUuid")
		parent, _ = marshal(id)
		out = append(out, o.encode())
	}
	stamp := rfc3339ms(now)
	answer := func(after *object, id string) error {
		c := calls[id]
		if f == FormatPi {
			if c.moved != nil {
				o, err := parseObject(c.moved)
				if err != nil {
					return err
				}
				emit(o)
				return nil
			}
			o := &object{vals: map[string]json.RawMessage{}}
			o.set("type", "message")
			o.set("id", "")
			o.set("parentId", nil)
			o.set("timestamp", stamp)
			o.set("message", map[string]any{"role": "toolResult", "toolCallId": id, "toolName": c.name,
				"content": []any{map[string]any{"type": "text", "text": RepairResultText}}, "isError": true, "timestamp": now.UnixMilli()})
			emit(o)
			return nil
		}
		o := &object{vals: map[string]json.RawMessage{}}
		o.set("parentUuid", nil)
		o.set("isSidechain", false)
		for _, k := range claudeEnvelope {
			if v := after.get(k); v != nil {
				o.set(k, v)
			}
		}
		o.set("type", "user")
		block := c.moved
		if block == nil {
			block, _ = marshal(map[string]any{"type": "tool_result", "tool_use_id": id, "content": RepairResultText, "is_error": true})
		}
		o.set("message", map[string]any{"role": "user", "content": []json.RawMessage{block}})
		o.set("uuid", "")
		o.set("timestamp", stamp)
		emit(o)
		return nil
	}
	for i := first; i < len(msgs); i++ {
		m := &msgs[i]
		recs, err := src.records(m)
		if err != nil {
			return err
		}
		var last *object
		for _, r := range recs {
			if r == nil {
				continue
			}
			o, err := parseObject(r)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if keep, changed := keptBlocks(f, r, m, i, drop); changed {
				if keep == nil {
					continue // every result of the record moved or left out
				}
				msg, err := parseObject(o.get("message"))
				if err != nil {
					return err
				}
				msg.set("content", keep)
				o.set("message", json.RawMessage(msg.encode()))
			}
			emit(o)
			last = o
		}
		if m.Role != RoleAssistant || last == nil {
			continue
		}
		for _, id := range order {
			if c := calls[id]; c.msg == i && !c.ok {
				if err := answer(last, id); err != nil {
					return err
				}
			}
		}
	}
	plan.Records = len(out)
	plan.Data = lines(out)
	return nil
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

// repairCodex writes one compacted item whose replacement_history is the repaired context.
func repairCodex(src *Source, msgs []Message, calls map[string]*repairCall, order []string, drop map[[2]int]bool, now time.Time, plan *RepairPlan) error {
	var items []json.RawMessage
	for i := range msgs {
		m := &msgs[i]
		recs, err := src.records(m)
		if err != nil {
			return err
		}
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
				// is handled below); a rebuilt user message is written as one.
				if m.Role == RoleTool {
					continue
				}
				b, _ := marshal(map[string]any{"type": "message", "role": string(m.Role),
					"content": []any{map[string]any{"type": "input_text", "text": m.TextContent()}}})
				items = append(items, b)
				continue
			}
			if cid := it.Get("call_id").String(); cid != "" && m.Role == RoleTool && k < len(m.Blocks) && drop[[2]int{i, k}] {
				continue
			}
			items = append(items, json.RawMessage(it.Raw))
			if cid := it.Get("call_id").String(); cid != "" && m.Role == RoleAssistant {
				if c := calls[cid]; c != nil {
					c.typ = it.Get("type").String()
				}
			}
		}
		if m.Role != RoleAssistant {
			continue
		}
		for _, id := range order {
			c := calls[id]
			if c.msg != i || c.ok {
				continue
			}
			if c.moved != nil {
				items = append(items, c.moved)
				continue
			}
			typ := "function_call_output"
			if c.typ == "custom_tool_call" {
				typ = "custom_tool_call_output"
			}
			b, _ := marshal(map[string]any{"type": typ, "call_id": id, "output": RepairResultText})
			items = append(items, b)
		}
	}
	line, err := marshal(map[string]any{"timestamp": rfc3339ms(now), "type": "compacted",
		"payload": map[string]any{"message": "", "replacement_history": items}})
	if err != nil {
		return err
	}
	plan.Records = 1
	plan.Data = append(line, '\n')
	return nil
}

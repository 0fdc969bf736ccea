package clinetask

import (
	"encoding/json"
	"os"
	"strconv"

	"github.com/tidwall/gjson"
)

// clineLines applies Cline's reload rule (its ContextManager, in Cline 3.x's extension and the
// CLI 2.x): the context is the first user-assistant pair, then the messages after the deleted
// range (all after the pair when there is none); the first message after a truncation loses
// its tool results; each message's blocks take the newest text Cline's edits give them; a user
// message after an assistant's tool calls sends their results first, in the calls' order, each
// "result missing" when it holds none (its other results left out). open are the calls of a
// last assistant message: Cline answers them "result missing" in the message that resumes.
func clineLines(msgs []gjson.Result, deleted []int, edits map[int]map[int]string) (lines []Line, open []string) {
	start := 2
	if len(deleted) == 2 && deleted[1]+1 > start {
		start = deleted[1] + 1
	}
	lines = make([]Line, len(msgs))
	var prev []string // the calls of the last sent message, when an assistant's
	last := -1
	for i, m := range msgs {
		l := &lines[i]
		l.Index, l.Message = i, json.RawMessage(m.Raw)
		l.Sent = len(msgs) <= 1 || i < 2 || i >= start
		if !l.Sent {
			continue
		}
		for b, text := range edits[i] {
			if l.Edits == nil {
				l.Edits = map[string]string{}
			}
			l.Edits[strconv.Itoa(b)] = text
		}
		role := m.Get("role").String()
		l.DropResults = i == start && start > 2 && role == "user"
		if role == "user" && len(prev) > 0 {
			l.Calls = prev
		}
		prev = nil
		if role == "assistant" {
			prev = callIDs(m)
		}
		last = i
	}
	if last >= 0 && msgs[last].Get("role").String() == "assistant" {
		open = prev
	}
	return lines, open
}

// callIDs are the ids of an assistant message's tool_use blocks, in order.
func callIDs(m gjson.Result) []string {
	var ids []string
	m.Get("content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").String() == "tool_use" && b.Get("id").String() != "" {
			ids = append(ids, b.Get("id").String())
		}
		return true
	})
	return ids
}

// contextEdits reads Cline's context_history.json: [[messageIndex, [editType, [[blockIndex,
// [[ts, updateType, [text], metadata], ...]], ...]]], ...]; the newest update of a block, when
// of type "text", is the block's text.
func contextEdits(path string) map[int]map[int]string {
	data, err := os.ReadFile(path)
	if err != nil || !gjson.ValidBytes(data) {
		return nil
	}
	out := map[int]map[int]string{}
	gjson.ParseBytes(data).ForEach(func(_, msg gjson.Result) bool {
		blocks := msg.Get("1.1")
		blocks.ForEach(func(_, blk gjson.Result) bool {
			updates := blk.Get("1").Array()
			if len(updates) == 0 {
				return true
			}
			latest := updates[len(updates)-1]
			if latest.Get("1").String() != "text" {
				return true
			}
			text := latest.Get("2.0")
			if text.Type != gjson.String {
				return true
			}
			mi := int(msg.Get("0").Int())
			if out[mi] == nil {
				out[mi] = map[int]string{}
			}
			out[mi][int(blk.Get("0").Int())] = text.String()
			return true
		})
		return true
	})
	return out
}

// rooLines applies Roo Code's reload rule (getEffectiveApiHistory): after its newest condense
// summary (isSummary) the context is that summary and the messages after it, their tool results
// whose call is not among those messages left out (a user message left with nothing is not
// sent); without one, the messages but those whose condenseParent names a summary still in the
// history. Either way a message whose truncationParent names a truncation marker (isTruncationMarker,
// truncationId) still there is not sent.
func rooLines(msgs []gjson.Result) []Line {
	lines := make([]Line, len(msgs))
	summaries, markers := map[string]bool{}, map[string]bool{}
	lastSummary := -1
	for i, m := range msgs {
		lines[i].Index, lines[i].Message = i, json.RawMessage(m.Raw)
		if m.Get("isSummary").Bool() {
			lastSummary = i
			if id := m.Get("condenseId").String(); id != "" {
				summaries[id] = true
			}
		}
	}
	from := max(lastSummary, 0)
	for _, m := range msgs[from:] {
		if m.Get("isTruncationMarker").Bool() && m.Get("truncationId").String() != "" {
			markers[m.Get("truncationId").String()] = true
		}
	}
	calls := map[string]bool{}
	for _, m := range msgs[from:] {
		if m.Get("role").String() == "assistant" {
			for _, id := range callIDs(m) {
				calls[id] = true
			}
		}
	}
	for i, m := range msgs {
		l := &lines[i]
		switch {
		case i < from:
		case markers[m.Get("truncationParent").String()]:
		case lastSummary < 0 && summaries[m.Get("condenseParent").String()]:
		default:
			l.Sent = true
		}
		if l.Sent && lastSummary >= 0 {
			l.Drop, l.Sent = orphanResults(m, calls)
		}
	}
	return lines
}

// orphanResults are the ids of a user message's tool results whose call is not in calls; sent is
// false when they are all the message holds.
func orphanResults(m gjson.Result, calls map[string]bool) (drop []string, sent bool) {
	c := m.Get("content")
	if m.Get("role").String() != "user" || !c.IsArray() {
		return nil, true
	}
	kept := 0
	c.ForEach(func(_, b gjson.Result) bool {
		if id := b.Get("tool_use_id").String(); b.Get("type").String() == "tool_result" && !calls[id] {
			drop = append(drop, id)
		} else {
			kept++
		}
		return true
	})
	return drop, kept > 0
}

package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// piWriter writes a compaction as pi does when it compacts itself: a `compaction` entry, child of
// the newest entry (pi's leaf), whose firstKeptEntryId names the first entry of the tail. pi's
// context is then its summary message, the entries from the first kept one on, and what follows.
// The head cannot be kept by reference (the kept entries run from firstKeptEntryId to the end),
// so the summary says what it held (conv.HeadedSummary). v1 files
// (no entry ids) get a v1 entry with firstKeptEntryIndex. ctxc's provenance is under "ctxc",
// which pi ignores. A new file (-o) is a v3 session: the header with a fresh id, copies of the
// tail's entries under fresh ids, then the compaction entry.
type piWriter struct{}

func (piWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	if len(c.Tail) == 0 || c.Tail[0].Summary {
		return Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail that starts with a message entry", src.Path)
	}
	for i := range c.Tail {
		if c.Tail[i].Edited {
			return piAppendCopies(src, c)
		}
	}
	first, err := src.Line(int32(c.Tail[0].Line))
	if err != nil {
		return Written{}, err
	}
	fe, err := conv.ParseObject(first)
	if err != nil {
		return Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[0].Line, err)
	}
	if firstID := fe.Str("id"); firstID != "" {
		parent, err := piLeafID(src)
		if err != nil {
			return Written{}, err
		}
		e := piCompaction(c, newHexID(8), parent, "firstKeptEntryId", firstID)
		return Written{Data: conv.Lines([][]byte{e.Encode()}), Messages: 1 + len(c.Tail)}, nil
	}
	// v1: entries are addressed by their index in the file, the header being 0.
	idx, err := entryIndex(src, c.Tail[0].Line)
	if err != nil {
		return Written{}, err
	}
	e := piCompaction(c, "", "", "firstKeptEntryIndex", idx)
	return Written{Data: conv.Lines([][]byte{e.Encode()}), Messages: 1 + len(c.Tail)}, nil
}

// piAppendCopies is the append of an emergency compaction that cut blocks in the tail: the tail
// cannot be kept by reference, so the compaction entry is followed by copies of the tail's
// entries (the cut ones shortened) under fresh ids, and firstKeptEntryId names the first copy:
// pi's context is then the summary and the copies (checked with pi 0.73.1). A write cut short
// leaves the summary and some of the copies, or the file as it was.
func piAppendCopies(src *Source, c *Compaction) (Written, error) {
	leafID, err := piLeafID(src)
	if err != nil {
		return Written{}, err
	}
	cid := newHexID(8)
	var copies [][]byte
	parent := cid
	first := ""
	for i := range c.Tail {
		m := &c.Tail[i]
		recs, err := src.Records(m)
		if err != nil {
			return Written{}, err
		}
		for _, r := range recs {
			o, err := conv.ParseObject(r)
			if err != nil {
				return Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if m.Edited {
				piApplyEdits(o, m)
			}
			id := newHexID(8)
			if first == "" {
				first = id
			}
			o.Set("id", id)
			o.Set("parentId", parent)
			parent = id
			copies = append(copies, o.Encode())
		}
	}
	e := piCompaction(c, cid, leafID, "firstKeptEntryId", first)
	return Written{Data: conv.Lines(append([][]byte{e.Encode()}, copies...)), Messages: 1 + len(c.Tail)}, nil
}

// piCompaction is the compaction entry: id and parent are left out for v1 files (""), and the
// first kept entry is named by id or, in v1, by index (firstKey). pi does not skip copies after
// it, so the meta counts none.
func piCompaction(c *Compaction, id, parent, firstKey string, first any) *object {
	meta := c.Meta
	meta.TailLines = 0
	e := conv.NewObject()
	e.Set("type", "compaction")
	if id != "" {
		e.Set("id", id)
		e.Set("parentId", parent)
	}
	e.Set("timestamp", conv.RFC3339ms(c.Now))
	e.Set("summary", conv.HeadedSummary(c))
	e.Set(firstKey, first)
	e.Set("tokensBefore", c.Meta.TokensBefore)
	e.Set("details", map[string]any{"readFiles": []string{}, "modifiedFiles": []string{}})
	e.Set("fromHook", false)
	e.Set("ctxc", meta)
	return e
}

// piLeafID is the id of the newest entry, which pi continues from.
func piLeafID(src *Source) (string, error) {
	leaf, err := src.LastRecord()
	if err != nil {
		return "", err
	}
	lo, err := conv.ParseObject(leaf)
	if err != nil || lo.Str("id") == "" {
		return "", fmt.Errorf("%s: the newest entry has no id to continue from (pi v2 or later is needed)", src.Path)
	}
	return lo.Str("id"), nil
}

// piApplyEdits writes a cut tool result's text into a copy of its entry.
func piApplyEdits(o *object, m *Message) {
	msg, err := conv.ParseObject(o.Get("message"))
	if err != nil {
		return
	}
	for _, b := range m.Blocks {
		if b.Kind == BlockToolResult {
			msg.Set("content", []map[string]string{{"type": "text", "text": b.Text}})
		}
	}
	o.Set("message", json.RawMessage(msg.Encode()))
}

func (piWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("type") != "session" {
		return Written{}, fmt.Errorf("%s:1: not a pi session header: a new pi session needs one", src.Path)
	}
	if len(c.Tail) == 0 {
		return Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail", src.Path)
	}
	id := conv.NewUUIDv7(c.Now)
	h.Set("version", 3)
	h.Set("id", id)
	h.Set("timestamp", conv.RFC3339ms(c.Now))
	h.Del("branchedFrom")
	h.Del("parentSession")
	out := [][]byte{h.Encode()}
	parent := ""
	firstKept := ""
	for i := range c.Tail {
		recs, err := src.Records(&c.Tail[i])
		if err != nil {
			return Written{}, err
		}
		for _, r := range recs {
			if r == nil {
				continue
			}
			o, err := conv.ParseObject(r)
			if err != nil {
				return Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[i].Line, err)
			}
			if c.Tail[i].Edited {
				piApplyEdits(o, &c.Tail[i])
			}
			eid := newHexID(8)
			o.Set("id", eid)
			if parent == "" {
				o.Set("parentId", nil)
				firstKept = eid
			} else {
				o.Set("parentId", parent)
			}
			parent = eid
			out = append(out, o.Encode())
		}
	}
	e := piCompaction(c, newHexID(8), parent, "firstKeptEntryId", firstKept)
	out = append(out, e.Encode())
	return Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail), Session: id,
		Resume: conv.ResumeHint(FormatPi, "")}, nil
}

// entryIndex is a v1 pi entry's index: the count of entries (valid JSON lines) before line n.
func entryIndex(s *Source, n int) (int, error) {
	lr := jsonl.NewLineReader(io.NewSectionReader(s.ReaderAt(), 0, 1<<62))
	idx := 0
	for {
		l, err := lr.Next()
		if err != nil {
			return 0, fmt.Errorf("%s: line %d not found: %v", s.Path, n, err)
		}
		if l.Num == n {
			return idx, nil
		}
		if jsonl.Valid(conv.TrimBOM(l.Bytes)) {
			idx++
		}
	}
}

// piSession renders a new pi session from messages: a v3 header under a fresh id, then one
// message entry per message, each the child of the one before. Tool results are toolResult
// messages of their own (pi's shape); system and developer text becomes user text.
func piSession(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error) {
	id := conv.NewUUIDv7(s.Now)
	now := conv.RFC3339ms(s.Now)
	h, err := conv.Marshal(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": now, "cwd": s.Cwd})
	if err != nil {
		return Written{}, r.dropped, err
	}
	out := [][]byte{h}
	names := map[string]string{} // source call id → tool name
	parent := ""
	for i := range ms {
		for _, msg := range piMessages(&ms[i], r, names, s.Now.UnixMilli()) {
			eid := newHexID(8)
			e, err := conv.Marshal(map[string]any{"type": "message", "id": eid, "parentId": conv.ParentOrNil(parent), "timestamp": now, "message": msg})
			if err != nil {
				return Written{}, r.dropped, err
			}
			parent = eid
			out = append(out, e)
		}
	}
	if len(out) == 1 {
		return Written{}, r.dropped, fmt.Errorf("no message to write")
	}
	return Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.dropped, nil
}

// PiEmptyResult is the text of a tool result that has none, in a new pi session: pi sends an
// empty result as "(see attached image)", which would mislead the model.
const PiEmptyResult = "(no output)"

// piMessages are the pi messages of one message: its tool results first, each a toolResult
// message, then its text and calls as one user or assistant message.
func piMessages(m *Message, r *sessionRender, names map[string]string, ms int64) []map[string]any {
	var out []map[string]any
	var content []map[string]any
	calls := false
	for _, b := range m.Blocks {
		switch b.Kind {
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				content = append(content, map[string]any{"type": "text", "text": b.Text})
			}
		case BlockToolCall:
			calls = true
			names[b.ID] = b.Name
			content = append(content, map[string]any{"type": "toolCall", "id": r.callID("call_", b.ID), "name": b.Name, "arguments": callArgs(b.Args)})
		case BlockToolResult:
			text := b.Text
			if strings.TrimSpace(text) == "" {
				text = PiEmptyResult
			}
			name := names[b.ID]
			if name == "" {
				name = b.Name
			}
			out = append(out, map[string]any{"role": "toolResult", "toolCallId": r.callID("call_", b.ID), "toolName": name,
				"content": []map[string]string{{"type": "text", "text": text}}, "isError": b.IsError, "timestamp": ms})
		}
	}
	if len(content) == 0 {
		return out
	}
	if userOrAssistant(m.Role) == RoleUser {
		return append(out, map[string]any{"role": "user", "content": content, "timestamp": ms})
	}
	stop := "stop"
	if calls {
		stop = "toolUse"
	}
	return append(out, map[string]any{"role": "assistant", "content": content, "api": "openai-completions", "provider": "ctxc", "model": "handoff",
		"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
			"cost": map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
		"stopReason": stop, "timestamp": ms})
}

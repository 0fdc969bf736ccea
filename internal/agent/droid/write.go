package droid

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as droid does when it compacts itself: a compaction_state
// event whose summaryText is the summary (with the head, which droid cannot keep by reference)
// and whose anchorMessage names the message right before the kept tail; droid's context is then
// its summary message and the messages after the anchor. When the tail cannot be kept by
// reference (it is empty, starts with a tool result, which droid skips after an anchor, or was
// cut), the anchor is the newest message and copies of the tail follow under fresh ids. ctxc's
// provenance rides under "ctxc", which droid ignores. A new file (-o) is the session_start line
// with a fresh id, the compaction_state without an anchor (droid then keeps every message), and
// copies of the tail.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	byRef := len(c.Tail) > 0 && c.Tail[0].ToolResults() < len(c.Tail[0].Blocks)
	for i := range c.Tail {
		byRef = byRef && !c.Tail[i].Edited
	}
	stop := 0
	if byRef {
		stop = c.Tail[0].Line
	}
	anchorID, anchorIdx, err := droidAnchor(src, stop)
	if err != nil {
		return conv.Written{}, err
	}
	e := droidCompaction(c, anchorID, anchorIdx)
	out := [][]byte{e.Encode()}
	if !byRef {
		copies, err := droidCopies(src, c, anchorID)
		if err != nil {
			return conv.Written{}, err
		}
		out = append(out, copies...)
	}
	return conv.Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail)}, nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("type") != "session_start" {
		return conv.Written{}, fmt.Errorf("%s:1: not a droid session_start line: a new droid session needs one", src.Path)
	}
	id := conv.NewUUID()
	h.Set("id", id)
	e := droidCompaction(c, "", -1)
	copies, err := droidCopies(src, c, "")
	if err != nil {
		return conv.Written{}, err
	}
	out := append([][]byte{h.Encode(), e.Encode()}, copies...)
	return conv.Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail), Session: id,
		Resume: fmt.Sprintf("place it as ~/.factory/sessions/<project folder with / as ->/%s.jsonl, then: %s", id, conv.ResumeHint(conv.FormatDroid, id))}, nil
}

// droidCompaction is the compaction_state event; anchorID "" leaves the anchor out.
func droidCompaction(c *conv.Compaction, anchorID string, anchorIdx int) *conv.Object {
	e := conv.NewObject()
	e.Set("type", "compaction_state")
	e.Set("id", conv.NewUUID())
	e.Set("timestamp", conv.RFC3339ms(c.Now))
	e.Set("summaryText", conv.HeadedSummary(c))
	e.Set("summaryTokens", c.Meta.TokensAfter)
	e.Set("summaryKind", "llm_summary")
	if anchorID != "" {
		e.Set("anchorMessage", map[string]any{"id": anchorID, "index": anchorIdx})
	}
	e.Set("removedCount", len(c.Head)+len(c.Middle))
	meta := c.Meta
	meta.TailLines = 0
	e.Set("ctxc", meta)
	return e
}

// droidAnchor finds the id and index of the newest "message" event before line stop (0: in
// the whole file).
func droidAnchor(src *conv.Source, stop int) (id string, idx int, err error) {
	lr := jsonl.NewLineReader(io.NewSectionReader(src.ReaderAt(), 0, 1<<62))
	idx = -1
	n := 0
	for {
		l, err := lr.Next()
		if err == io.EOF || (err == nil && stop > 0 && l.Num >= stop) {
			break
		}
		if err != nil {
			return "", 0, fmt.Errorf("%s: %w", src.Path, err)
		}
		b := conv.TrimBOM(conv.TrimLine(l.Bytes))
		if !jsonl.Valid(b) {
			continue
		}
		f := droidEventFields(jsonl.Value(conv.UnsafeString(b)))
		if f.typ.Str() == "message" {
			id, idx = f.id.Str(), n
			n++
		}
	}
	if id == "" {
		return "", 0, fmt.Errorf("%s: no message with an id before the kept tail: droid needs one to anchor its summary", src.Path)
	}
	return id, idx, nil
}

// droidCopies are the tail's message events under fresh ids, chained from parent.
func droidCopies(src *conv.Source, c *conv.Compaction, parent string) ([][]byte, error) {
	return conv.CopyTailRecords(src, c, agent.Droid, parent, droidApplyEdits)
}

// droidApplyEdits writes a cut tool result's text into a copy of its event.
func droidApplyEdits(o *conv.Object, m *conv.Message) {
	msg, err := conv.ParseObject(o.Get("message"))
	if err != nil {
		return
	}
	var content []map[string]any
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			content = append(content, map[string]any{"type": "tool_result", "tool_use_id": b.ID, "is_error": b.IsError, "content": b.Text})
		}
	}
	if content != nil {
		msg.Set("content", content)
		o.Set("message", json.RawMessage(msg.Encode()))
	}
}

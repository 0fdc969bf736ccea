package copilot

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as Copilot CLI does when it compacts itself: a
// session.compaction_complete event whose summaryContent is the summary. Copilot's context on
// resume is then its summary message and the events after it only, so the kept tail follows as
// copies of its events under fresh ids, and the head rides in the summary. ctxc's provenance is
// under data.ctxc, which Copilot ignores. A new file (-o) is the session.start event with a
// fresh session id, the compaction event and the tail's copies.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	last, err := src.LastRecord()
	if err != nil {
		return conv.Written{}, err
	}
	lo, err := conv.ParseObject(last)
	if err != nil {
		return conv.Written{}, fmt.Errorf("%s: the newest event: %w", src.Path, err)
	}
	out, err := copilotEvents(src, c, lo.Str("id"))
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail)}, nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("type") != "session.start" {
		return conv.Written{}, fmt.Errorf("%s:1: not a Copilot session.start event: a new Copilot session needs one", src.Path)
	}
	data, err := conv.ParseObject(h.Get("data"))
	if err != nil {
		return conv.Written{}, fmt.Errorf("%s:1: session.start data: %w", src.Path, err)
	}
	id := conv.NewUUID()
	data.Set("sessionId", id)
	data.Set("startTime", conv.RFC3339ms(c.Now))
	h.Set("data", json.RawMessage(data.Encode()))
	h.Set("id", conv.NewUUID())
	h.Set("timestamp", conv.RFC3339ms(c.Now))
	h.Set("parentId", nil)
	out, err := copilotEvents(src, c, h.Str("id"))
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: conv.Lines(append([][]byte{h.Encode()}, out...)), Messages: 1 + len(c.Tail), Session: id,
		Resume: fmt.Sprintf("place it as ~/.copilot/session-state/%s/events.jsonl, then: %s", id, conv.ResumeHint(conv.FormatCopilot, id))}, nil
}

// copilotEvents are the compaction event, child of parent, and the copies of the tail.
func copilotEvents(src *conv.Source, c *conv.Compaction, parent string) ([][]byte, error) {
	e := conv.NewObject()
	e.Set("type", "session.compaction_complete")
	meta := c.Meta
	meta.TailLines = 0
	e.Set("data", map[string]any{"success": true, "outcome": "applied", "trigger": "manual",
		"preCompactionTokens": c.Meta.TokensBefore, "postCompactionTokens": c.Meta.TokensAfter,
		"messagesRemoved": len(c.Head) + len(c.Middle), "summaryContent": conv.HeadedSummary(c), "ctxc": meta})
	id := conv.NewUUID()
	e.Set("id", id)
	e.Set("timestamp", conv.RFC3339ms(c.Now))
	e.Set("parentId", conv.ParentOrNil(parent))
	copies, err := conv.CopyTailRecords(src, c, "Copilot", id, copilotApplyEdits)
	if err != nil {
		return nil, err
	}
	return append([][]byte{e.Encode()}, copies...), nil
}

// copilotApplyEdits writes a cut tool result's text into a copy of its event.
func copilotApplyEdits(o *conv.Object, m *conv.Message) {
	data, err := conv.ParseObject(o.Get("data"))
	if err != nil {
		return
	}
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			data.Set("success", true)
			data.Set("result", map[string]string{"content": b.Text})
			data.Del("error")
		}
	}
	o.Set("data", json.RawMessage(data.Encode()))
}

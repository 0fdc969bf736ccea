package pi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as pi does when it compacts itself: a `compaction` entry, child of
// the newest entry (pi's leaf), whose firstKeptEntryId names the first entry of the tail. pi's
// context is then its summary message, the entries from the first kept one on, and what follows.
// The head cannot be kept by reference (the kept entries run from firstKeptEntryId to the end),
// so the summary says what it held (conv.HeadedSummary). v1 files
// (no entry ids) get a v1 entry with firstKeptEntryIndex. ctxc's provenance is under "ctxc",
// which pi ignores. A new file (-o) is a v3 session: the header with a fresh id, copies of the
// tail's entries under fresh ids, then the compaction entry.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	if len(c.Tail) == 0 || c.Tail[0].Summary {
		return conv.Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail that starts with a message entry", src.Path)
	}
	for i := range c.Tail {
		if c.Tail[i].Edited {
			return piAppendCopies(src, c)
		}
	}
	first, err := src.Line(int32(c.Tail[0].Line))
	if err != nil {
		return conv.Written{}, err
	}
	fe, err := conv.ParseObject(first)
	if err != nil {
		return conv.Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[0].Line, err)
	}
	if firstID := fe.Str("id"); firstID != "" {
		parent, err := piLeafID(src)
		if err != nil {
			return conv.Written{}, err
		}
		e := piCompaction(c, conv.NewHexID(8), parent, "firstKeptEntryId", firstID)
		return conv.Written{Data: conv.Lines([][]byte{e.Encode()}), Messages: 1 + len(c.Tail)}, nil
	}
	// v1: entries are addressed by their index in the file, the header being 0.
	idx, err := entryIndex(src, c.Tail[0].Line)
	if err != nil {
		return conv.Written{}, err
	}
	e := piCompaction(c, "", "", "firstKeptEntryIndex", idx)
	return conv.Written{Data: conv.Lines([][]byte{e.Encode()}), Messages: 1 + len(c.Tail)}, nil
}

// piAppendCopies is the append of an emergency compaction that cut blocks in the tail: the tail
// cannot be kept by reference, so the compaction entry is followed by copies of the tail's
// entries (the cut ones shortened) under fresh ids, and firstKeptEntryId names the first copy:
// pi's context is then the summary and the copies (checked with pi 0.73.1). A write cut short
// leaves the summary and some of the copies, or the file as it was.
func piAppendCopies(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	leafID, err := piLeafID(src)
	if err != nil {
		return conv.Written{}, err
	}
	cid := conv.NewHexID(8)
	var copies [][]byte
	parent := cid
	first := ""
	for i := range c.Tail {
		m := &c.Tail[i]
		recs, err := src.Records(m)
		if err != nil {
			return conv.Written{}, err
		}
		for _, r := range recs {
			o, err := conv.ParseObject(r)
			if err != nil {
				return conv.Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if m.Edited {
				piApplyEdits(o, m)
			}
			id := conv.NewHexID(8)
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
	return conv.Written{Data: conv.Lines(append([][]byte{e.Encode()}, copies...)), Messages: 1 + len(c.Tail)}, nil
}

// piCompaction is the compaction entry: id and parent are left out for v1 files (""), and the
// first kept entry is named by id or, in v1, by index (firstKey). pi does not skip copies after
// it, so the meta counts none.
func piCompaction(c *conv.Compaction, id, parent, firstKey string, first any) *conv.Object {
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
func piLeafID(src *conv.Source) (string, error) {
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
func piApplyEdits(o *conv.Object, m *conv.Message) {
	msg, err := conv.ParseObject(o.Get("message"))
	if err != nil {
		return
	}
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			msg.Set("content", []map[string]string{{"type": "text", "text": b.Text}})
		}
	}
	o.Set("message", json.RawMessage(msg.Encode()))
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := headerRecord(src)
	if err != nil {
		return conv.Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("type") != "session" {
		return conv.Written{}, fmt.Errorf("%s:1: not a pi session header: a new pi session needs one", src.Path)
	}
	if len(c.Tail) == 0 {
		return conv.Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail", src.Path)
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
			return conv.Written{}, err
		}
		for _, r := range recs {
			if r == nil {
				continue
			}
			o, err := conv.ParseObject(r)
			if err != nil {
				return conv.Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[i].Line, err)
			}
			if c.Tail[i].Edited {
				piApplyEdits(o, &c.Tail[i])
			}
			eid := conv.NewHexID(8)
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
	e := piCompaction(c, conv.NewHexID(8), parent, "firstKeptEntryId", firstKept)
	out = append(out, e.Encode())
	return conv.Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail), Session: id,
		Resume: conv.ResumeHint(conv.FormatPi, "")}, nil
}

// entryIndex is a v1 pi entry's index: the count of entries (valid JSON lines) before line n.
func entryIndex(s *conv.Source, n int) (int, error) {
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

// TitleType is the type of the title slot line Oh My Pi, pi's descendant, writes above a
// session's header (pi's entries follow it unchanged).
const TitleType = "title"

// headerRecord is a session's header: its first record, or, below a title slot line, the one
// after it.
func headerRecord(src *conv.Source) ([]byte, error) {
	lr := jsonl.NewLineReader(io.NewSectionReader(src.ReaderAt(), 0, 1<<62))
	for records := 0; ; {
		l, err := lr.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: no session header: %v", src.Path, err)
		}
		b := bytes.TrimSpace(conv.TrimBOM(l.Bytes))
		if len(b) == 0 {
			continue
		}
		if !jsonl.Valid(b) {
			return nil, &conv.DataError{Path: src.Path, Line: l.Num, Msg: "invalid JSON"}
		}
		records++
		if records == 1 && jsonl.Value(b).Get("type").Str() == TitleType {
			continue
		}
		return append([]byte(nil), b...), nil
	}
}

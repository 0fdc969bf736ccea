package transcript

import (
	"encoding/json"
	"fmt"
	"io"
)

// piWriter writes a compaction as pi does when it compacts itself: a `compaction` entry, child of
// the newest entry (pi's leaf), whose firstKeptEntryId names the first entry of the tail. pi's
// context is then its summary message, the entries from the first kept one on, and what follows.
// The head cannot be kept by reference (the kept entries run from firstKeptEntryId to the end),
// so the summary says what it held (headedSummary). v1 files
// (no entry ids) get a v1 entry with firstKeptEntryIndex. ctxc's provenance is under "ctxc",
// which pi ignores. A new file (-o) is a v3 session: the header with a fresh id, copies of the
// tail's entries under fresh ids, then the compaction entry.
type piWriter struct{}

func (piWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &BusyError{Path: src.Path, Reason: "changed"}
	}
	if len(c.Tail) == 0 || c.Tail[0].Summary {
		return Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail that starts with a message entry", src.Path)
	}
	first, err := src.Line(int32(c.Tail[0].Line))
	if err != nil {
		return Written{}, err
	}
	fe, err := parseObject(first)
	if err != nil {
		return Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[0].Line, err)
	}
	meta := c.Meta
	meta.TailLines = 0
	e := &object{vals: map[string]json.RawMessage{}}
	e.set("type", "compaction")
	if firstID := fe.str("id"); firstID != "" {
		leaf, err := src.LastRecord()
		if err != nil {
			return Written{}, err
		}
		lo, err := parseObject(leaf)
		if err != nil || lo.str("id") == "" {
			return Written{}, fmt.Errorf("%s: the newest entry has no id to continue from", src.Path)
		}
		e.set("id", newHexID(8))
		e.set("parentId", lo.str("id"))
		e.set("timestamp", rfc3339ms(c.Now))
		e.set("summary", headedSummary(c))
		e.set("firstKeptEntryId", firstID)
	} else {
		// v1: entries are addressed by their index in the file, the header being 0.
		idx, err := src.entryIndex(c.Tail[0].Line)
		if err != nil {
			return Written{}, err
		}
		e.set("timestamp", rfc3339ms(c.Now))
		e.set("summary", headedSummary(c))
		e.set("firstKeptEntryIndex", idx)
	}
	e.set("tokensBefore", c.Meta.TokensBefore)
	e.set("details", map[string]any{"readFiles": []string{}, "modifiedFiles": []string{}})
	e.set("fromHook", false)
	e.set("ctxc", meta)
	return Written{Data: lines([][]byte{e.encode()}), Messages: 1 + len(c.Tail)}, nil
}

func (piWriter) New(src *Source, c *Compaction) (Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return Written{}, err
	}
	h, err := parseObject(first)
	if err != nil || h.str("type") != "session" {
		return Written{}, fmt.Errorf("%s:1: not a pi session header: a new pi session needs one", src.Path)
	}
	if len(c.Tail) == 0 {
		return Written{}, fmt.Errorf("%s: pi keeps the tail by reference to its first entry: there must be a tail", src.Path)
	}
	id := newUUIDv7(c.Now)
	h.set("version", 3)
	h.set("id", id)
	h.set("timestamp", rfc3339ms(c.Now))
	h.del("branchedFrom")
	h.del("parentSession")
	out := [][]byte{h.encode()}
	parent := ""
	firstKept := ""
	for i := range c.Tail {
		recs, err := src.records(&c.Tail[i])
		if err != nil {
			return Written{}, err
		}
		for _, r := range recs {
			if r == nil {
				continue
			}
			o, err := parseObject(r)
			if err != nil {
				return Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[i].Line, err)
			}
			eid := newHexID(8)
			o.set("id", eid)
			if parent == "" {
				o.set("parentId", nil)
				firstKept = eid
			} else {
				o.set("parentId", parent)
			}
			parent = eid
			out = append(out, o.encode())
		}
	}
	meta := c.Meta
	meta.TailLines = 0
	e := &object{vals: map[string]json.RawMessage{}}
	e.set("type", "compaction")
	e.set("id", newHexID(8))
	e.set("parentId", parent)
	e.set("timestamp", rfc3339ms(c.Now))
	e.set("summary", headedSummary(c))
	e.set("firstKeptEntryId", firstKept)
	e.set("tokensBefore", c.Meta.TokensBefore)
	e.set("details", map[string]any{"readFiles": []string{}, "modifiedFiles": []string{}})
	e.set("fromHook", false)
	e.set("ctxc", meta)
	out = append(out, e.encode())
	return Written{Data: lines(out), Messages: 1 + len(c.Tail), Session: id,
		Resume: "pi --session FILE"}, nil
}

// entryIndex is a v1 pi entry's index: the count of entries (valid JSON lines) before line n.
func (s *Source) entryIndex(n int) (int, error) {
	lr := NewLineReader(io.NewSectionReader(s.f, 0, 1<<62))
	idx := 0
	for {
		l, err := lr.Next()
		if err != nil {
			return 0, fmt.Errorf("%s: line %d not found: %v", s.Path, n, err)
		}
		if l.Num == n {
			return idx, nil
		}
		if validJSON(trimBOM(l.Bytes)) {
			idx++
		}
	}
}

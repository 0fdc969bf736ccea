package transcript

import (
	"encoding/json"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/tidwall/gjson"
)

// markerWriter writes ctxc's own marker (docs/design.md §6), the compaction record of the generic
// formats and of any -o file asked for in ctxc format: one marker line that holds the head and
// the summary, then verbatim copies of the tail's lines (and, in place with --force, of message
// lines that arrived while the summary was being written, so that the reloaded context keeps
// them). TailLines counts the copies in the same file, so statistics do not count them twice.
type markerWriter struct {
	source Format // the compacted file's format, recorded in -o files from agent formats
}

func (w markerWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	tail, err := messageLines(c.Tail)
	if err != nil {
		return Written{}, err
	}
	extra := 0
	for _, l := range late {
		if IsMessageLine(l) {
			tail = append(tail[:len(tail):len(tail)], l)
			extra++
		}
	}
	data, err := w.render(c, tail, len(tail))
	return Written{Data: data, Messages: len(c.Head) + 1 + len(c.Tail) + extra}, err
}

func (w markerWriter) New(src *Source, c *Compaction) (Written, error) {
	tail, err := messageLines(c.Tail)
	if err != nil {
		return Written{}, err
	}
	data, err := w.render(c, tail, 0)
	return Written{Data: data, Messages: len(c.Head) + 1 + len(c.Tail)}, err
}

func (w markerWriter) render(c *Compaction, tail [][]byte, copies int) ([]byte, error) {
	head, err := messageLines(c.Head)
	if err != nil {
		return nil, err
	}
	meta := c.Meta
	meta.TailLines = copies
	if !w.source.IsGeneric() && w.source != FormatUnknown {
		meta.SourceFormat = string(w.source)
	}
	mk := Marker{Compact: c.Summary, Head: make([]json.RawMessage, len(head)), Ctxc: &meta}
	for i, l := range head {
		mk.Head[i] = json.RawMessage(l)
	}
	line, err := mk.Encode()
	if err != nil {
		return nil, err
	}
	return append(line, conv.Lines(tail)...), nil
}

// messageLines renders messages as lines of a generic file: the bytes as written when they can
// be replayed, OpenAI lines otherwise.
func messageLines(ms []Message) ([][]byte, error) {
	var out [][]byte
	for _, m := range ms {
		if m.Raw != nil {
			out = append(out, m.Raw)
			continue
		}
		ls, err := msglist.OpenAILine(m)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// IsMessageLine reports whether a raw line is a conversation message of a generic file.
func IsMessageLine(l []byte) bool {
	if !jsonl.Valid(l) {
		return false
	}
	doc := gjson.Parse(conv.UnsafeString(l))
	_, ok := messageOf(doc)
	return ok
}

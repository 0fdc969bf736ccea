package transcript

import (
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// DecodeRecord decodes one line (without its terminator; a BOM is accepted) of a file of format
// f. ok is false when the line is not valid JSON.
func DecodeRecord(f Format, line []byte, num int) (rec Record, ok bool) {
	return decodeRecord(f, line, num, true)
}

// DecodeRecordTransient is DecodeRecord for a caller that drops the record before line's
// bytes change: the messages' text may point into line instead of a copy of it.
func DecodeRecordTransient(f Format, line []byte, num int) (rec Record, ok bool) {
	return decodeRecord(f, line, num, false)
}

func decodeRecord(f Format, line []byte, num int, own bool) (rec Record, ok bool) {
	line = conv.TrimBOM(conv.TrimLine(line))
	if !jsonl.Valid(line) {
		return Record{}, false
	}
	s := conv.UnsafeString(line)
	if own {
		s = string(line) // messages keep substrings of it
	}
	doc := gjson.Parse(s)
	v := jsonl.Value(doc.Raw)
	if c, ok := codeOf(f); ok {
		rec = c.record(v)
	} else {
		rec = genericRecord(doc)
	}
	for i := range rec.Messages {
		rec.Messages[i].Line = num
	}
	return rec, true
}

func genericRecord(doc gjson.Result) Record {
	msg, compact, isMsg, sure := genericShape(jsonl.Value(doc.Raw))
	switch {
	case !sure:
		return genericRecordGJSON(doc)
	case compact:
		return genericMarker(doc)
	case !isMsg:
		return Record{}
	}
	d, _ := messageDialectV(msg)
	m := parseDialectV(msg, d, conv.SearchText)
	m.Raw = []byte(msg)
	return Record{Messages: []Message{m}}
}

// genericShape tells what a generic line is from its members, as gjson's Get finds them (the
// first of a key): a ctxc marker (a "compact" member), or a message (the line, or its "message"
// object, with a string "role"). It reads the members in one walk, where each gjson.Get read
// the line up to its key, the whole line for a key that is absent ("compact" of every message).
// sure is false when a key is written with an escape, which gjson matches unescaped: the
// caller asks gjson (genericRecordGJSON).
func genericShape(v jsonl.Value) (msg jsonl.Value, compact, isMsg, sure bool) {
	var role, message jsonl.Value
	var seenRole, seenMessage bool
	sure = true
	v.Each(func(k string, val jsonl.Value) bool {
		if strings.IndexByte(k, '\\') >= 0 {
			sure = false
			return false
		}
		switch {
		case k == "compact":
			compact = true
		case k == "role" && !seenRole:
			seenRole, role = true, val
		case k == "message" && !seenMessage:
			seenMessage, message = true, val
		}
		return true
	})
	if !sure || compact {
		return "", compact, false, sure
	}
	if seenRole && role.IsString() {
		return v, false, true, true
	}
	if !seenMessage || !message.IsObject() {
		return "", false, false, true
	}
	message.Each(func(k string, val jsonl.Value) bool {
		if strings.IndexByte(k, '\\') >= 0 {
			sure = false
			return false
		}
		if k == "role" {
			isMsg = val.IsString()
			return false
		}
		return true
	})
	if !isMsg {
		return "", false, false, sure
	}
	return message, false, true, sure
}

// genericRecordGJSON is genericRecord read with gjson: for keys written with escapes, and the
// reference its tests hold genericShape to.
func genericRecordGJSON(doc gjson.Result) Record {
	if doc.Get("compact").Exists() {
		return genericMarker(doc)
	}
	msg, ok := messageOf(doc)
	if !ok {
		return Record{}
	}
	d, _ := messageDialect(msg)
	m := parseDialect(msg, d, conv.SearchText)
	m.Raw = []byte(msg.Raw)
	return Record{Messages: []Message{m}}
}

// genericMarker reads a ctxc marker line.
func genericMarker(doc gjson.Result) Record {
	mk, ok := parseMarkerDoc(doc, conv.NoText)
	if !ok {
		return Record{}
	}
	rec := Record{Compaction: true, TailLines: mk.tailLines, Meta: conv.MetaOf(jsonl.Value(mk.meta.Raw))}
	s := Message{Role: RoleUser, Summary: true, Blocks: []Block{{Kind: BlockText, Text: mk.summary}}}
	rec.Messages = []Message{s}
	return rec
}

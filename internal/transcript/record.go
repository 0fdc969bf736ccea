package transcript

import (
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"
)

// Record is what one line of a transcript adds to the conversation history, decoded with its
// text, for searches of the whole history (ctxc grep) and checks of a file line by line. It
// says the same as the format readers do about a line seen on its own: copies of earlier
// records (a ctxc marker's head, the items a Codex replacement_history carries over) are not
// new history and are left out; a compaction's summary is.
type Record struct {
	Messages []Message // new conversation messages of the line, with their text and Line set
	// Compaction is set when the line is a compaction record: a ctxc marker, a Claude Code
	// compact_boundary, a Codex compacted item, a pi compaction entry.
	Compaction bool
	// Meta is ctxc's provenance on a compaction record that ctxc wrote (nil otherwise, or when
	// it cannot be read).
	Meta *MarkerMeta
	// TailLines, for a ctxc marker, is how many lines right after it copy the kept tail.
	TailLines int
	// Sidechain: a Claude Code subagent record (its messages are not in Messages).
	Sidechain bool
}

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
	line = trimBOM(trimLine(line))
	if !validJSON(line) {
		return Record{}, false
	}
	s := unsafeString(line)
	if own {
		s = string(line) // messages keep substrings of it
	}
	doc := gjson.Parse(s)
	v := jv(doc.Raw)
	switch f {
	case FormatClaude:
		rec = claudeRecord(v)
	case FormatCodex:
		rec = codexRecord(v)
	case FormatPi:
		rec = piRecord(v)
	default:
		rec = genericRecord(doc)
	}
	for i := range rec.Messages {
		rec.Messages[i].Line = num
	}
	return rec, true
}

func metaOf(v jv) *MarkerMeta {
	if !v.isObject() {
		return nil
	}
	var m MarkerMeta
	if json.Unmarshal([]byte(v), &m) != nil {
		return nil
	}
	return &m
}

func genericRecord(doc gjson.Result) Record {
	msg, compact, isMsg, sure := genericShape(jv(doc.Raw))
	switch {
	case !sure:
		return genericRecordGJSON(doc)
	case compact:
		return genericMarker(doc)
	case !isMsg:
		return Record{}
	}
	d, _ := messageDialectV(msg)
	m := parseDialectV(msg, d, searchText)
	m.Raw = []byte(msg)
	return Record{Messages: []Message{m}}
}

// genericShape tells what a generic line is from its members, as gjson's Get finds them (the
// first of a key): a ctxc marker (a "compact" member), or a message (the line, or its "message"
// object, with a string "role"). It reads the members in one walk, where each gjson.Get read
// the line up to its key, the whole line for a key that is absent ("compact" of every message).
// sure is false when a key is written with an escape, which gjson matches unescaped: the
// caller asks gjson (genericRecordGJSON).
func genericShape(v jv) (msg jv, compact, isMsg, sure bool) {
	var role, message jv
	var seenRole, seenMessage bool
	sure = true
	v.each(func(k string, val jv) bool {
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
	if seenRole && role.isString() {
		return v, false, true, true
	}
	if !seenMessage || !message.isObject() {
		return "", false, false, true
	}
	message.each(func(k string, val jv) bool {
		if strings.IndexByte(k, '\\') >= 0 {
			sure = false
			return false
		}
		if k == "role" {
			isMsg = val.isString()
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
	m := parseDialect(msg, d, searchText)
	m.Raw = []byte(msg.Raw)
	return Record{Messages: []Message{m}}
}

// genericMarker reads a ctxc marker line.
func genericMarker(doc gjson.Result) Record {
	mk, ok := parseMarkerDoc(doc, noText)
	if !ok {
		return Record{}
	}
	rec := Record{Compaction: true, TailLines: mk.tailLines, Meta: metaOf(jv(mk.meta.Raw))}
	s := Message{Role: RoleUser, Summary: true, Blocks: []Block{{Kind: BlockText, Text: mk.summary}}}
	rec.Messages = []Message{s}
	return rec
}

func claudeRecord(v jv) Record {
	var typ, subtype string
	var msg, meta jv
	var sidechain, summary bool
	v.each(func(k string, val jv) bool {
		switch k {
		case "type":
			typ = val.str()
		case "subtype":
			subtype = val.str()
		case "message":
			msg = val
		case "ctxc":
			meta = val
		case "isSidechain":
			sidechain = val.boolean()
		case "isCompactSummary":
			summary = val.boolean()
		}
		return true
	})
	if typ == "system" && subtype == "compact_boundary" {
		return Record{Compaction: true, Meta: metaOf(meta)}
	}
	if (typ != "user" && typ != "assistant") || !msg.isObject() {
		return Record{}
	}
	if sidechain {
		return Record{Sidechain: true}
	}
	c := claudeReader{}
	m := c.message(msg, typ, searchText)
	m.Summary = summary
	return Record{Messages: []Message{m}}
}

func codexRecord(v jv) Record {
	typ, payload, state := codexEnvelope(v)
	if payload.exists() && codexItemTypes[typ] {
		switch typ {
		case "response_item":
			return codexItemRecord(payload)
		case "compacted":
			rec := Record{Compaction: true, Meta: metaOf(payload.get("ctxc"))}
			if msg := payload.get("message"); msg.isString() && msg != `""` {
				rec.Messages = append(rec.Messages, codexSummaryMessage(msg, searchText))
			}
			payload.get("replacement_history").each(func(_ string, it jv) bool {
				if m, _ := codexItemMessage(it, searchText); m.Summary && len(m.Blocks) > 0 {
					rec.Messages = append(rec.Messages, m) // the summary is new; the rest are copies
				}
				return true
			})
			return rec
		}
		return Record{}
	}
	if typ == "" || state {
		return Record{}
	}
	return codexItemRecord(v) // bare-era response item
}

func codexItemRecord(it jv) Record {
	m, _ := codexItemMessage(it, searchText)
	if len(m.Blocks) == 0 {
		return Record{}
	}
	if m.Summary && it.get("type").str() != "message" {
		return Record{Compaction: true, Messages: []Message{m}} // an encrypted compaction item
	}
	return Record{Messages: []Message{m}}
}

func piRecord(v jv) Record {
	f := piEntryFields(v)
	typ := f.typ.str()
	switch typ {
	case "session":
		return Record{}
	case "compaction":
		m := Message{Role: RoleUser, Summary: true}
		if f.summary.isString() {
			m.Blocks = []Block{{Kind: BlockText, Text: f.summary.str()}}
		}
		return Record{Compaction: true, Meta: metaOf(v.get("ctxc")), Messages: []Message{m}}
	}
	m, _ := piEntryMessage(typ, f, searchText)
	if len(m.Blocks) == 0 {
		return Record{}
	}
	return Record{Messages: []Message{m}}
}

// DecodeString decodes a JSON string value (with its quotes) as the readers do.
func DecodeString(raw string) string { return jv(raw).str() }

// Unescape decodes the text between a JSON string's quotes as DecodeString does; a text cut
// inside an escape decodes to other bytes only from there on.
func Unescape(inner string) string { return unescape(inner) }

// AppendUnescape appends what Unescape returns to dst.
func AppendUnescape(dst []byte, inner string) []byte { return appendUnescape(dst, inner) }

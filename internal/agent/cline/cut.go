package cline

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// Cline's message builder (@cline/core MessageBuilder.buildForApi, 3.0.65) cuts each string of
// a tool result longer than maxResultChars UTF-16 code units in its middle, before it sends
// it: the strings of a result that is a string, the text of its text parts, the content of its
// file parts, and every string inside its other objects (read_files' {query, result, success});
// a result that is not a string is then sent as its JSON. (CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS
// changes the limit: ctxc takes the default.)
const maxResultChars = 8000

// cutResult is a tool result's content as Cline sends it: a string cut, or JSON (as
// JSON.stringify writes it) with its strings cut.
func cutResult(c jsonl.Value) string {
	if c.IsString() {
		return cutMiddle(c.Text())
	}
	var b strings.Builder
	if c.IsArray() {
		b.WriteByte('[')
		i := 0
		c.Each(func(_ string, p jsonl.Value) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			switch typ := p.Get("type").Str(); {
			case !p.IsObject() || typ == "image":
				writeJSON(&b, p, false)
			case typ == "text", typ == "file":
				writeJSONKeys(&b, p, map[string]bool{"text": typ == "text", "content": typ == "file"})
			default:
				writeJSON(&b, p, true)
			}
			return true
		})
		b.WriteByte(']')
		return b.String()
	}
	writeJSON(&b, c, false)
	return b.String()
}

// writeJSON writes v as JSON.stringify does, every string cut when cut is set.
func writeJSON(b *strings.Builder, v jsonl.Value, cut bool) {
	switch {
	case v.IsString():
		s := v.Text()
		if cut {
			s = cutMiddle(s)
		}
		clinesess.Quote(b, s)
	case v.IsObject():
		writeObject(b, v, func(string, jsonl.Value) bool { return cut })
	case v.IsArray():
		b.WriteByte('[')
		i := 0
		v.Each(func(_ string, val jsonl.Value) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			writeJSON(b, val, cut)
			return true
		})
		b.WriteByte(']')
	default:
		b.WriteString(string(v)) // (numbers, true, false, null as written)
	}
}

// writeJSONKeys writes an object as JSON.stringify does, the strings of the keys in cut cut.
func writeJSONKeys(b *strings.Builder, v jsonl.Value, cut map[string]bool) {
	writeObject(b, v, func(k string, val jsonl.Value) bool { return cut[k] && val.IsString() })
}

// writeObject writes an object as JSON.stringify does, each member's strings cut when cutMember
// says so.
func writeObject(b *strings.Builder, v jsonl.Value, cutMember func(k string, val jsonl.Value) bool) {
	b.WriteByte('{')
	i := 0
	v.Each(func(k string, val jsonl.Value) bool {
		if i > 0 {
			b.WriteByte(',')
		}
		i++
		clinesess.Quote(b, k)
		b.WriteByte(':')
		writeJSON(b, val, cutMember(k, val))
		return true
	})
	b.WriteByte('}')
}

// cutMiddle is Cline's middle cut of a string (truncateMiddle): over maxResultChars UTF-16
// code units, its head and tail around "\n\n...[truncated N chars]...\n\n", the whole no longer
// than the limit.
func cutMiddle(s string) string {
	if len(s) <= maxResultChars { // (no more code units than bytes)
		return s
	}
	u := utf16.Encode([]rune(s))
	n, limit := len(u), maxResultChars
	if n <= limit {
		return s
	}
	marker := func(k int) string { return "\n\n...[truncated " + strconv.Itoa(k) + " chars]...\n\n" }
	x := max(0, (limit-len(marker(n-limit)))/2)
	m := marker(max(0, n-2*x))
	j := max(0, (limit-len(m))/2)
	if j == 0 {
		return m
	}
	return string(utf16.Decode(u[:j])) + m + string(utf16.Decode(u[n-j:]))
}

package hooks

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The settings files are edited in place, over byte spans: a parse records where each value,
// member and container starts and ends, and an edit inserts or deletes only the bytes of
// ctxc's own entry. The user's key order, formatting, number spellings and escapes stay
// byte-for-byte, and removing what ctxc inserted gives back the original bytes. (sjson can set
// a value at a path, but it does not tell where an array element and its separator begin and
// end, which is what an exact removal needs, and it would be one more dependency; decoding
// into maps would lose key order and formatting.)

// node is a parsed JSON value with its byte span [start, end).
type node struct {
	kind       byte // '{', '[', '"', or 'v' for a literal or number
	start, end int
	keys       []string // object member names, in order
	keyStart   []int    // where each member's name starts
	kids       []*node  // member values or array elements
}

// parseSpans parses data, which must be valid JSON (json.Valid), into spans.
func parseSpans(data []byte) *node {
	p := &spanParser{b: data}
	p.ws()
	return p.value()
}

type spanParser struct {
	b []byte
	i int
}

func (p *spanParser) ws() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *spanParser) value() *node {
	n := &node{start: p.i}
	switch c := p.b[p.i]; c {
	case '{', '[':
		n.kind = c
		p.i++
		for {
			p.ws()
			if p.b[p.i] == '}' || p.b[p.i] == ']' {
				p.i++
				break
			}
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
			if c == '{' {
				ks := p.i
				p.str()
				var name string
				json.Unmarshal(p.b[ks:p.i], &name)
				n.keys = append(n.keys, name)
				n.keyStart = append(n.keyStart, ks)
				p.ws()
				p.i++ // ':'
				p.ws()
			}
			n.kids = append(n.kids, p.value())
		}
	case '"':
		n.kind = '"'
		p.str()
	default:
		n.kind = 'v'
		for p.i < len(p.b) && strings.IndexByte(",]} \t\r\n", p.b[p.i]) < 0 {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// str skips a string starting at p.i.
func (p *spanParser) str() {
	p.i++
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
}

// member returns the value of an object's member name (the last one, as decoders do).
func (n *node) member(name string) (*node, int) {
	if n == nil || n.kind != '{' {
		return nil, -1
	}
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == name {
			return n.kids[i], i
		}
	}
	return nil, -1
}

// itemStart is where the i-th member (its name) or element begins.
func (n *node) itemStart(i int) int {
	if n.kind == '{' {
		return n.keyStart[i]
	}
	return n.kids[i].start
}

// style is how a file is laid out: its indent unit, or compact.
type style struct {
	compact bool
	unit    string
}

// detectStyle finds the indent unit of the first indented line; a file without line breaks
// is compact.
func detectStyle(data []byte) style {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return style{compact: true}
	}
	for i >= 0 && i+1 < len(data) {
		rest := data[i+1:]
		j := 0
		for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
			j++
		}
		if j > 0 {
			return style{unit: string(rest[:j])}
		}
		k := bytes.IndexByte(rest, '\n')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return style{unit: "  "}
}

// lineIndent is the leading white space of the line holding offset at.
func lineIndent(data []byte, at int) string {
	s := bytes.LastIndexByte(data[:at], '\n') + 1
	e := s
	for e < len(data) && (data[e] == ' ' || data[e] == '\t') {
		e++
	}
	return string(data[s:e])
}

// render marshals v for insertion at the given indent.
func render(v any, st style, indent string) []byte {
	if st.compact {
		b, _ := marshalNoEscape(v, "", "")
		return b
	}
	b, _ := marshalNoEscape(v, indent, st.unit)
	return b
}

func marshalNoEscape(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// appendItem inserts item (a rendered member `"key": value` or element) as the last item of
// container c, laid out like the file. Removing it with removeItem gives back data when c
// was not empty.
func appendItem(data []byte, c *node, st style, item func(indent string) []byte) []byte {
	outer := lineIndent(data, c.start)
	inner := outer + st.unit
	var ins []byte
	at := 0
	if len(c.kids) == 0 {
		// An empty container: its inside is replaced.
		at = c.start + 1
		if st.compact {
			ins = item("")
		} else {
			ins = append(append([]byte("\n"+inner), item(inner)...), "\n"+outer...)
		}
		out := append([]byte{}, data[:at]...)
		out = append(out, ins...)
		return append(out, data[c.end-1:]...)
	}
	at = c.kids[len(c.kids)-1].end
	if st.compact {
		ins = append([]byte(","), item("")...)
	} else {
		ins = append([]byte(",\n"+inner), item(inner)...)
	}
	out := append([]byte{}, data[:at]...)
	out = append(out, ins...)
	return append(out, data[at:]...)
}

// removeItem deletes the i-th member or element of container c with its separator: from the
// end of the item before it, so that an item appendItem added goes away byte for byte.
func removeItem(data []byte, c *node, i int) []byte {
	var from, to int
	switch {
	case len(c.kids) == 1:
		from, to = c.start+1, c.end-1
	case i > 0:
		from, to = c.kids[i-1].end, c.kids[i].end
	default:
		from, to = c.itemStart(0), c.itemStart(1)
	}
	out := append([]byte{}, data[:from]...)
	return append(out, data[to:]...)
}

// memberBytes renders `"name": value` for insertion at indent.
func memberBytes(name string, v any, st style, indent string) []byte {
	k, _ := marshalNoEscape(name, "", "")
	sep := ": "
	if st.compact {
		sep = ":"
	}
	return append(append(k, sep...), render(v, st, indent)...)
}

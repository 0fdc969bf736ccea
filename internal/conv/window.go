package conv

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// ToolTextWindow is how much of each end of a large tool result a windowed load decodes
// (Options.Windowed, Block.Cut): at least what any summarizer reads of it, which is 8 KiB of
// each end (summarize.ToolEndBytes; a test in compact checks the two agree).
const ToolTextWindow = 8 << 10

// windowed decodes the two ends of the JSON string literal lit into b (Text, Tail) and keeps
// lit, which detach turns into a file span for Materialize; a text whose ends would meet is
// decoded whole instead.
func windowed(b *Block, lit jsonl.Value) {
	head, tail, cut := windowEnds(lit, ToolTextWindow)
	if !cut {
		b.Text = lit.Str()
		return
	}
	b.Text, b.Tail, b.Cut, b.CutSrc = head, tail, true, string(lit)
}

// windowEnds decodes at least w bytes of each end of the JSON string literal lit; cut is false
// when the ends would meet (the caller then decodes the whole).
func windowEnds(lit jsonl.Value, w int) (head, tail string, cut bool) {
	inner := string(lit[1 : len(lit)-1])
	// The escaped form is at least as long as the decoded one, so n escaped bytes decode to at
	// most n bytes: the head decodes until it has enough, the tail widens its cut until it has.
	head, headEnd := unescapePrefix(inner, w)
	if headEnd >= len(inner)/2 {
		return "", "", false
	}
	// The end: cut back from the end at an escape boundary, first as far as the head needed.
	var tailStart int
	for k := headEnd + w/8; ; k *= 2 {
		if k >= len(inner)/2 {
			return "", "", false
		}
		tailStart = escapeBoundary(inner, len(inner)-k)
		if tail = jsonl.Unescape(inner[tailStart:]); len(tail) >= w {
			break
		}
	}
	if headEnd >= tailStart {
		return "", "", false
	}
	return head, tail, true
}

// unescapePrefix decodes s (the inside of a JSON string) until at least n bytes came out and
// returns them with how many bytes of s it read. It stops between escapes and between runes, so
// what it returns is a prefix of jsonl.Unescape(s).
func unescapePrefix(s string, n int) (string, int) {
	var b strings.Builder
	b.Grow(n + 8)
	i := 0
	for i < len(s) && b.Len() < n {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			j = len(s) - i
		}
		if need := n - b.Len(); j > need {
			cut := need
			for cut < j && !utf8.RuneStart(s[i+cut]) {
				cut++
			}
			b.WriteString(s[i : i+cut])
			i += cut
			continue // done unless the cut ran to the escape
		}
		b.WriteString(s[i : i+j])
		i += j
		if i >= len(s) || b.Len() >= n {
			break
		}
		if i+1 >= len(s) {
			b.WriteString(s[i:])
			i = len(s)
			break
		}
		i += jsonl.WriteEscape(&b, s[i:])
	}
	return b.String(), i
}

// escapeBoundary moves p back to the nearest place where the escaped JSON string s can be cut
// so that both sides decode on their own to what they hold in the whole: not inside an escape
// (\n, \uXXXX), not between the two escapes of a surrogate pair, not inside a UTF-8 sequence.
func escapeBoundary(s string, p int) int {
	for {
		q := p
		for q > 0 && q < len(s) && !utf8.RuneStart(s[q]) {
			q--
		}
		// Inside \uXXXX (the escape starts at most 5 bytes back) or right after a backslash
		// that starts an escape.
		for j := max(q-5, 0); j < q; j++ {
			if s[j] == '\\' && j+1 < len(s) && startsEscape(s, j) && (s[j+1] == 'u' || j == q-1) {
				if s[j+1] == 'u' && j+6 <= q {
					continue // the \u escape ends before q
				}
				q = j
				break
			}
		}
		// After the first half of a surrogate pair: keep the pair together.
		if q >= 6 && s[q-6] == '\\' && s[q-5] == 'u' && startsEscape(s, q-6) {
			if r, ok := jsonl.Hex4(s[q-6:], 2); ok && utf16.IsSurrogate(r) && r < 0xdc00 {
				q -= 6
			}
		}
		if q == p {
			return p
		}
		p = q
	}
}

// startsEscape reports whether the backslash at s[j] starts an escape, that is, whether an even
// number of backslashes precede it.
func startsEscape(s string, j int) bool {
	n := 0
	for j-n-1 >= 0 && s[j-n-1] == '\\' {
		n++
	}
	return n%2 == 0
}

// Detach makes m, parsed in place from line (which starts at byte off of the file), independent
// of line's buffer: strings that point into it are copied, except that the literal of a Cut
// block and raw, the message's verbatim JSON (Raw; "" if none), become file spans for
// Materialize.
func Detach(m *Message, line []byte, off int64, raw string) {
	at := InLine(line, off)
	for i := range m.Blocks {
		b := &m.Blocks[i]
		if b.Cut {
			o, _ := at(b.CutSrc)
			b.Span, b.CutSrc = Span{Off: o, N: int32(len(b.CutSrc))}, ""
		}
	}
	Own(m, at)
	if o, in := at(raw); in {
		m.RawSpan, m.Raw = Span{Off: o, N: int32(len(raw))}, nil
	}
}

// InLine tells whether a string lies in line (whose first byte is at off in the file), and
// where in the file.
func InLine(line []byte, off int64) func(string) (int64, bool) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
	return func(s string) (int64, bool) {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if len(s) == 0 || p < base || p >= base+uintptr(len(line)) {
			return 0, false
		}
		return off + int64(p-base), true
	}
}

// Own copies each string of m that lies in the line (at) so that m keeps none of the line's
// bytes. A string decoded from escapes is m's already and is not copied again: a message
// parsed in place and then owned holds one copy of its text, where parsing a copy of the line
// held the copy and the decoded text besides.
func Own(m *Message, at func(string) (int64, bool)) {
	clone := func(s string) string {
		if _, in := at(s); in {
			return strings.Clone(s)
		}
		return s
	}
	m.Role, m.MsgID = Role(clone(string(m.Role))), clone(m.MsgID)
	for i := range m.Blocks {
		b := &m.Blocks[i]
		b.Text, b.Tail, b.ID, b.Name, b.Args = clone(b.Text), clone(b.Tail), clone(b.ID), clone(b.Name), clone(b.Args)
		b.Verbatim, b.CutSrc = clone(b.Verbatim), clone(b.CutSrc)
	}
}

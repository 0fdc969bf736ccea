package transcript

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// detach makes m, parsed in place from line (which starts at byte off of the file), independent
// of line's buffer: strings that point into it are copied, except that the literal of a Cut
// block and raw, the message's verbatim JSON (Raw; "" if none), become file spans for
// Materialize.
func detach(m *Message, line []byte, off int64, raw string) {
	at := inLine(line, off)
	for i := range m.Blocks {
		b := &m.Blocks[i]
		if b.Cut {
			o, _ := at(b.CutSrc)
			b.Span, b.CutSrc = span{Off: o, N: int32(len(b.CutSrc))}, ""
		}
	}
	own(m, at)
	if o, in := at(raw); in {
		m.RawSpan, m.Raw = span{Off: o, N: int32(len(raw))}, nil
	}
}

// inLine tells whether a string lies in line (whose first byte is at off in the file), and
// where in the file.
func inLine(line []byte, off int64) func(string) (int64, bool) {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
	return func(s string) (int64, bool) {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if len(s) == 0 || p < base || p >= base+uintptr(len(line)) {
			return 0, false
		}
		return off + int64(p-base), true
	}
}

// own copies each string of m that lies in the line (at) so that m keeps none of the line's
// bytes. A string decoded from escapes is m's already and is not copied again: a message
// parsed in place and then owned holds one copy of its text, where parsing a copy of the line
// held the copy and the decoded text besides.
func own(m *Message, at func(string) (int64, bool)) {
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

// Materialize reads back from f, the file ms were loaded from with Options.Windowed, what the
// load left out: the whole text of windowed tool results (Block.Cut) and the verbatim bytes
// of the messages (Raw). What is written out or sent must be complete. A file changed since the
// load gives an error rather than different text (the checks: valid JSON, the same length in
// code points, the same decoded ends).
func Materialize(f io.ReaderAt, ms []Message) error {
	read := func(s span) ([]byte, error) {
		buf := make([]byte, s.N)
		if _, err := f.ReadAt(buf, s.Off); err != nil {
			return nil, fmt.Errorf("reading back bytes %d-%d: %w", s.Off, s.Off+int64(s.N), err)
		}
		return buf, nil
	}
	changed := errors.New("the file changed while it was being compacted")
	for i := range ms {
		m := &ms[i]
		if m.RawSpan.N > 0 {
			raw, err := read(m.RawSpan)
			if err != nil {
				return err
			}
			if !jsonl.Valid(raw) {
				return changed
			}
			if re := parseDialectV(jsonl.Value(conv.UnsafeString(raw)), m.Dialect, conv.NoText); re.Role != m.Role || re.Chars() != m.Chars() {
				return changed
			}
			m.Raw, m.RawSpan = raw, span{}
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if !b.Cut {
				continue
			}
			lit, err := read(b.Span)
			if err != nil {
				return err
			}
			v := jsonl.Value(conv.UnsafeString(lit))
			if !v.IsString() || !jsonl.Valid(lit) || v.Chars() != b.Chars {
				return changed
			}
			text := v.Str()
			if !strings.HasPrefix(text, b.Text) || !strings.HasSuffix(text, b.Tail) {
				return changed // the ends the summary was made from are not there
			}
			*b = Block{Kind: b.Kind, Text: text, ID: b.ID, Name: b.Name, Args: b.Args, IsError: b.IsError, Chars: b.Chars, Images: b.Images}
		}
	}
	return nil
}

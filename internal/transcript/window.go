package transcript

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

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

package expand

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Span is a compaction record with ctxc's provenance: the lines it summarized.
type Span struct {
	Marker int    // line of the compaction record
	Source string // the file the lines are in (the marker's file, or source.path)
	From   int
	To     int
	SHA256 string
}

// Spans lists the compaction records of a file that carry ctxc's provenance, in file order.
func Spans(path string, format transcript.Format) ([]Span, transcript.Format, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	format, err = transcript.Detect(f, path, transcript.Options{Format: format})
	if err != nil {
		return nil, "", err
	}
	if err := f.Rewind(); err != nil {
		return nil, "", err
	}
	lr := jsonl.NewLineReader(f)
	var out []Span
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		if !bytes.Contains(l.Bytes, []byte("compact")) {
			continue
		}
		rec, ok := transcript.DecodeRecord(format, l.Bytes, l.Num)
		if !ok || !rec.Compaction || rec.Meta == nil || rec.Meta.Source.FromLine <= 0 {
			continue
		}
		s := rec.Meta.Source
		sp := Span{Marker: l.Num, Source: path, From: s.FromLine, To: s.ToLine, SHA256: s.SHA256}
		if s.Path != "" {
			sp.Source = s.Path
			if !filepath.IsAbs(s.Path) {
				sp.Source = filepath.Join(filepath.Dir(path), s.Path)
			}
		}
		out = append(out, sp)
	}
	return out, format, nil
}

// Expanded is what a compaction replaced.
type Expanded struct {
	Span
	Messages []transcript.Message // the summarized messages, as the context held them
	Lines    [][]byte             // the file lines those messages came from, as stored (with their terminators)
}

// SpanError says that a summarized span is not what the compaction recorded.
type SpanError struct {
	Span Span
	Msg  string
}

func (e *SpanError) Error() string {
	return fmt.Sprintf("%s: lines %d-%d (summarized by the compaction at line %d): %s", e.Span.Source, e.Span.From, e.Span.To, e.Span.Marker, e.Msg)
}

// At returns the messages the n-th compaction of the file (1-based; 0: the last one)
// replaced, read from the span its provenance names and checked against its SHA-256.
func At(path string, n int, format transcript.Format) (*Expanded, error) {
	sp, err := pick(path, n, format)
	if err != nil {
		return nil, err
	}
	sf, err := transcript.OpenFile(sp.Source)
	if err != nil {
		return nil, fmt.Errorf("source of the compaction at %s:%d: %w", path, sp.Marker, err)
	}
	defer sf.Close()
	// The span's lines are read again by offset: an archived source is held decompressed.
	f, size, err := sf.ReaderAt()
	if err != nil {
		return nil, err
	}
	at, start, end, err := locate(io.NewSectionReader(f, 0, size), sp)
	if err != nil {
		return nil, err
	}
	if err := checkDigest(f, sp, start, end); err != nil {
		return nil, err
	}
	ex := &Expanded{Span: sp}
	var lines []int
	if ex.Messages, lines, err = spanMessages(sp, end, format); err != nil {
		return nil, err
	}
	for _, n := range lines {
		lc := at[n]
		b := make([]byte, lc.size)
		if _, err := f.ReadAt(b, lc.off); err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", sp.Source, n, err)
		}
		ex.Lines = append(ex.Lines, b)
	}
	return ex, nil
}

// pick returns the n-th span of the file's compactions with provenance (1-based; 0: the last).
func pick(path string, n int, format transcript.Format) (Span, error) {
	spans, _, err := Spans(path, format)
	if err != nil {
		return Span{}, err
	}
	if len(spans) == 0 {
		return Span{}, &transcript.DataError{Path: path, Msg: "no compaction with ctxc provenance (source lines and SHA-256) to expand"}
	}
	if n < 0 || n > len(spans) {
		return Span{}, fmt.Errorf("%s: --marker %d: the file has %d compaction(s) with provenance", path, n, len(spans))
	}
	if n == 0 {
		n = len(spans)
	}
	return spans[n-1], nil
}

// lineAt is where a line of a file is: its offset and size with its terminator.
type lineAt struct {
	off  int64
	size int
}

// locate finds the lines of the span in its source: where each is, and the span's bytes as
// stored (start to end). The span must be whole: its first and last lines there.
func locate(f io.Reader, sp Span) (at map[int]lineAt, start, end int64, err error) {
	lr := jsonl.NewLineReader(f)
	at = map[int]lineAt{}
	start, end = -1, -1
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: %w", sp.Source, err)
		}
		if l.Num < sp.From {
			continue
		}
		if l.Num > sp.To {
			break
		}
		if start < 0 {
			if l.Num != sp.From {
				return nil, 0, 0, &SpanError{sp, fmt.Sprintf("line %d is blank or missing", sp.From)}
			}
			start = l.Offset
		}
		at[l.Num] = lineAt{l.Offset, l.Size}
		end = l.Offset + int64(l.Size)
		if l.Num == sp.To {
			break
		}
	}
	if _, ok := at[sp.To]; !ok || start < 0 {
		return nil, 0, 0, &SpanError{sp, "the file has no such lines (truncated or another file?)"}
	}
	return at, start, end, nil
}

// checkDigest checks the span's bytes (start to end) against the SHA-256 the compaction
// recorded.
func checkDigest(f io.ReaderAt, sp Span, start, end int64) error {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, start, end-start)); err != nil {
		return fmt.Errorf("%s: %w", sp.Source, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sp.SHA256 {
		return &SpanError{sp, fmt.Sprintf("sha256 %s, but the compaction recorded %s: the lines changed since", got, sp.SHA256)}
	}
	return nil
}

// spanMessages returns the messages of the context, as it was when the span ended (the source
// read up to end), that came from the span, and the lines they start on, in order.
func spanMessages(sp Span, end int64, format transcript.Format) (msgs []transcript.Message, lines []int, err error) {
	_, all, err := transcript.LoadFileUpTo(sp.Source, end, transcript.Options{Format: format})
	if err != nil {
		return nil, nil, err
	}
	for _, m := range all {
		in := false
		for _, s := range m.Sources() {
			if int(s.Line) >= sp.From && int(s.Line) <= sp.To {
				in = true
				if s.Item == 0 && !slices.Contains(lines, int(s.Line)) {
					lines = append(lines, int(s.Line))
				}
			}
		}
		if in {
			msgs = append(msgs, m)
		}
	}
	slices.Sort(lines)
	return msgs, lines, nil
}

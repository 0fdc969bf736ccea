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

// Span is a compaction of a file and the lines it replaced: for one ctxc wrote, the span its
// provenance names, with the digest to check; for the agent's own (Agent), the lines of the
// messages it took out of the context, found when At reads it.
type Span struct {
	Marker int    // line of the compaction record
	Source string // the file the lines are in (the marker's file, or source.path)
	From   int
	To     int
	SHA256 string // "" for an agent's own compaction: it recorded no digest
	Agent  bool   // the agent's own compaction, without ctxc's provenance
	// The compaction's records in the file (transcript.CompactionRecord): the context before
	// Start is what the agent compacted, the context at End what it kept.
	Start, End int64
}

// Spans lists the compactions of a file in file order, where transcript's readers find them
// (Stats.Records): those ctxc wrote, with the span their provenance names, and the agent's own.
func Spans(path string, format transcript.Format) ([]Span, transcript.Format, error) {
	res, err := transcript.ScanFile(path, transcript.Options{Format: format})
	if err != nil {
		return nil, "", err
	}
	format = res.Stats.Format
	if len(res.Stats.Records) == 0 {
		return nil, format, nil
	}
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	text, _, err := f.ReaderAt()
	if err != nil {
		return nil, "", err
	}
	var out []Span
	for _, r := range res.Stats.Records {
		line, err := firstLine(text, r)
		if err != nil {
			return nil, "", fmt.Errorf("%s:%d: %w", path, r.Line, err)
		}
		sp := Span{Marker: r.Line, Source: path, Agent: true, Start: r.Start, End: r.End}
		if rec, ok := transcript.DecodeRecord(format, line, r.Line); ok && rec.Meta != nil && rec.Meta.Source.FromLine > 0 {
			s := rec.Meta.Source
			sp = Span{Marker: r.Line, Source: path, From: s.FromLine, To: s.ToLine, SHA256: s.SHA256, Start: r.Start, End: r.End}
			if s.Path != "" {
				sp.Source = s.Path
				if !filepath.IsAbs(s.Path) {
					sp.Source = filepath.Join(filepath.Dir(path), s.Path)
				}
			}
		}
		out = append(out, sp)
	}
	return out, format, nil
}

// firstLine reads the line a compaction record starts with.
func firstLine(f io.ReaderAt, r transcript.CompactionRecord) ([]byte, error) {
	b := make([]byte, r.End-r.Start)
	if _, err := f.ReadAt(b, r.Start); err != nil && err != io.EOF {
		return nil, err
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b, nil
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

// AgentNote says where the messages of an agent's own compaction come from.
const AgentNote = "the agent's own compaction, read back from the history in the file: no digest to check"

// At returns the messages the n-th compaction of the file (1-based; 0: the last one)
// replaced: for one ctxc wrote, read from the span its provenance names and checked against its
// SHA-256; for the agent's own, read from the history before it (agentCompaction).
func At(path string, n int, format transcript.Format) (*Expanded, error) {
	sp, format, err := pick(path, n, format)
	if err != nil {
		return nil, err
	}
	if sp.Agent {
		return agentCompaction(sp, format)
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
	if ex.Lines, err = readLines(f, sp.Source, at, lines); err != nil {
		return nil, err
	}
	return ex, nil
}

// readLines reads the given lines of a file, each with its terminator, where at says they are.
func readLines(f io.ReaderAt, path string, at map[int]lineAt, lines []int) ([][]byte, error) {
	var out [][]byte
	for _, n := range lines {
		lc := at[n]
		b := make([]byte, lc.size)
		if _, err := f.ReadAt(b, lc.off); err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// agentCompaction reads back what an agent's own compaction replaced: the messages of the
// context the agent had when it compacted (the file read up to the compaction's record) that
// the context it rebuilt right after it (read up to the end of its records) no longer holds.
// The history stays in the file; the agent recorded no digest of it, so there is none to check.
func agentCompaction(sp Span, format transcript.Format) (*Expanded, error) {
	opts := transcript.Options{Format: format}
	_, before, err := transcript.LoadFileUpTo(sp.Source, sp.Start, opts)
	if err != nil {
		return nil, err
	}
	_, after, err := transcript.LoadFileUpTo(sp.Source, sp.End, opts)
	if err != nil {
		return nil, err
	}
	ex := &Expanded{Span: sp}
	kept := keptBy(after)
	var lines []int
	for _, m := range before {
		if kept.holds(&m) {
			continue
		}
		ex.Messages = append(ex.Messages, m)
		for _, s := range m.Sources() {
			if s.Item == 0 && !slices.Contains(lines, int(s.Line)) {
				lines = append(lines, int(s.Line))
			}
		}
	}
	if len(ex.Messages) == 0 {
		return nil, &transcript.DataError{Path: sp.Source, Line: sp.Marker, Msg: "the compaction replaced no message of the context before it"}
	}
	slices.Sort(lines)
	if len(lines) == 0 {
		return ex, nil
	}
	ex.From, ex.To = lines[0], lines[len(lines)-1]
	f, err := transcript.OpenFile(sp.Source)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, size, err := f.ReaderAt()
	if err != nil {
		return nil, err
	}
	at, _, _, err := locate(io.NewSectionReader(text, 0, size), Span{Source: sp.Source, Marker: sp.Marker, From: ex.From, To: ex.To})
	if err != nil {
		return nil, err
	}
	if ex.Lines, err = readLines(text, sp.Source, at, lines); err != nil {
		return nil, err
	}
	return ex, nil
}

// keptSet is what the context after a compaction still holds: the file lines of its messages,
// and its messages' role and text (a compaction that carries messages over as copies, such as
// Codex's replacement_history, holds them on its own line).
type keptSet struct {
	lines map[int]bool
	texts map[string]bool
}

func keptBy(after []transcript.Message) keptSet {
	k := keptSet{lines: map[int]bool{}, texts: map[string]bool{}}
	for i := range after {
		m := &after[i]
		for _, s := range m.Sources() {
			k.lines[int(s.Line)] = true
		}
		if !m.Summary {
			k.texts[string(m.Role)+"\x00"+m.TextContent()] = true
		}
	}
	return k
}

// holds says whether the context after the compaction still has m.
func (k keptSet) holds(m *transcript.Message) bool {
	for _, s := range m.Sources() {
		if k.lines[int(s.Line)] {
			return true
		}
	}
	return k.texts[string(m.Role)+"\x00"+m.TextContent()]
}

// pick returns the n-th compaction of the file (1-based; 0: the last), and the file's format.
func pick(path string, n int, format transcript.Format) (Span, transcript.Format, error) {
	spans, format, err := Spans(path, format)
	if err != nil {
		return Span{}, "", err
	}
	if len(spans) == 0 {
		return Span{}, "", &transcript.DataError{Path: path, Msg: "no compaction to expand"}
	}
	if n < 0 || n > len(spans) {
		return Span{}, "", fmt.Errorf("%s: --marker %d: the file has %d compaction(s)", path, n, len(spans))
	}
	if n == 0 {
		n = len(spans)
	}
	return spans[n-1], format, nil
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

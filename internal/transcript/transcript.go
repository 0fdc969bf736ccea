package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/tidwall/gjson"
)

// Options control reading.
type Options struct {
	Format  Format          // forced format; FormatUnknown detects
	Strict  bool            // an invalid line is an error (exit 65) instead of a warning
	Top     int             // keep the N largest messages in Stats.Top
	Window  int             // context window for Stats.WindowPct
	MaxLine int             // line cap (0 = jsonl.DefaultMaxLine)
	Warn    func(w Warning) // called for each skipped line

	// Windowed, for loads: a large tool result is decoded only at its ends (see Block.Cut).
	// Compaction sets it: summarizers read the first and last ToolTextWindow bytes of a tool
	// result, and decoding the middle of every big tool output cost as much as reading the file.
	Windowed bool

	// Unnumbered, for loads: lines after the last marker are numbered as if the marker were
	// line 1, instead of counting the lines before it (a read of everything before the marker).
	// Compaction's check of what it wrote needs no line numbers.
	Unnumbered bool

	// FromNewestCompaction, for loads of a Claude Code session: read it from its newest
	// compact_boundary when the context starts there (loadClaudeTail), instead of the whole
	// file. The Stats then describe only the part read, and Warn hears only of its lines. The
	// hook sets it: it needs the context since the newest compaction, and at once.
	FromNewestCompaction bool

	// Observe, if set, is called on the reading goroutine with each message of the plain
	// message formats and Claude Code as its line is read, in file order, before the effective
	// context is known (see HeadWatch). The message must not be kept.
	Observe func(m *Message, l *jsonl.Line)

	// Counted, if set, is told of each message of the whole history as the statistics count
	// it (see Counted), in file order; ScanFile then reads the file in one pass.
	Counted func(Counted)

	// keep, set by load, is the format whose messages are parsed with their text during the
	// scan (by the pipeline's validators) and kept, so the lines need not be read twice.
	keep Format
}

// keepText is how loads decode the text of the messages they keep.
func (o Options) keepText() textMode {
	if o.Windowed {
		return conv.WindowedText
	}
	return conv.WithText
}

// Warning reports a skipped line.
type Warning struct {
	Path string
	Line int
	Msg  string
}

// String is the warning as printed: the path as quote.Name prints it.
func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", quote.Name(w.Path), w.Line, w.Msg) }

// Result is one scanned file: its statistics and, for Load, what makes its effective context.
type Result struct {
	Stats  *Stats
	refs   []ref
	reader formatReader
}

// detectWindow is how many valid lines detection may look at before it settles on a weak guess.
const detectWindow = 64

// scanLines reads a whole transcript once, streaming, and returns its statistics. Memory stays
// bounded by the longest line plus a few words per conversation line.
func scanLines(r io.Reader, path string, opts Options) (*Result, error) {
	lr := jsonl.NewLineReader(r)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	return scanFrom(lr, path, opts, opts.Format)
}

type bufferedLine struct {
	line    scanLine
	data    []byte
	release func() // unmaps data when it is a mapping of its own (scanner.hold)
}

// scanner holds the state of one pass over a file: detection, the format reader, statistics.
type scanner struct {
	path   string
	opts   Options
	format Format
	st     *Stats
	rd     formatReader
	held   []bufferedLine // lines seen before the format is known
	weak   Format
	// Before the first valid line: the invalid lines' warnings, held until a valid line shows
	// that the file is a transcript with a few bad lines (garbage gets one error instead).
	preface  []Warning
	anyValid bool
	// mapLine, when set, maps bytes of the file anew (the range reader of a mapped file sets
	// it): a long line held before the format is known is then held as a mapping of its own.
	mapLine func(off int64, n int) ([]byte, func(), error)
}

// garbageLines is how many lines that are not JSON, before any that is, make a file "not a
// transcript": one error naming the file instead of a warning for each of its lines.
const garbageLines = 16

func newScanner(path string, opts Options, format Format) *scanner {
	sc := &scanner{path: path, opts: opts, st: &Stats{Path: path, TopN: opts.Top, OnCounted: opts.Counted}}
	if format != FormatUnknown {
		sc.settle(format)
	}
	return sc
}

func (sc *scanner) settle(f Format) {
	if f == FormatUnknown {
		f = FormatOpenAI
	}
	sc.format = f
	sc.rd = newFormatReader(f)
	switch rd := sc.rd.(type) {
	case *genericReader:
		rd.keep = sc.opts.keep.IsGeneric()
		rd.text = sc.opts.keepText()
		rd.observe = sc.opts.Observe
	case *claude.Reader:
		if sc.opts.keep == FormatClaude {
			rd.Keep(sc.opts.keepText())
		}
		rd.Observe(sc.opts.Observe)
	}
	for i := range sc.held {
		b := sc.held[i]
		b.line.Bytes = b.data
		sc.rd.Add(&b.line, gjson.Parse(conv.UnsafeString(b.data)), sc.st)
	}
	sc.releaseHeld()
}

// hold keeps a line read before the format is known until settle reads it: its bytes are
// those of a buffer that is reused (or a window that is unmapped), so hold copies them, or,
// for a line of inPlaceFrom bytes or more when the file can be mapped anew (mapLine), maps
// them: a copy of a line of 100 MB would be 100 MB more of heap. A line read into memory of its
// own (a long line of a stream: release) is held where it is, the memory taken over.
func (sc *scanner) hold(l *scanLine) bufferedLine {
	held := bufferedLine{line: *l}
	held.line.Release = nil
	if l.Release != nil {
		held.data, held.release = l.Bytes, l.Release
		l.Release = nil
		return held
	}
	if preOf(&held.line) != nil && preOf(&held.line).inPlace {
		held.line.Pre = nil // it points into the line's buffer: re-parsed from data
	}
	if len(l.Bytes) >= inPlaceFrom && sc.mapLine != nil {
		if data, release, err := sc.mapLine(l.BytesOffset(), len(l.Bytes)); err == nil {
			held.data, held.release = data, release
			return held
		}
	}
	held.data = append([]byte(nil), l.Bytes...)
	return held
}

// releaseHeld lets the held lines go, unmapping those held as mappings: once settle has read
// them, or when the scan ends in an error before.
func (sc *scanner) releaseHeld() {
	for _, b := range sc.held {
		if b.release != nil {
			b.release()
		}
	}
	sc.held = nil
}

// line processes one line; valid says whether jsonl.Valid accepted it (computed by the
// caller, possibly on another goroutine).
func (sc *scanner) line(l *scanLine, valid bool) error {
	st := sc.st
	st.Lines++
	if !valid {
		return sc.invalid(l.Num, l.Bytes)
	}
	sc.valid()
	doc := gjson.Parse(conv.UnsafeString(l.Bytes))
	if sc.rd != nil {
		sc.rd.Add(l, doc, st)
		return nil
	}
	f, strong, derr := detectLine(doc)
	if derr != nil {
		if len(sc.held) == 0 && sc.weak == FormatUnknown {
			return &DataError{Path: sc.path, Line: l.Num, Msg: derr.Error()}
		}
		return invalidLine(st, sc.path, l.Num, derr.Error(), sc.opts)
	}
	if f != FormatUnknown && (sc.weak == FormatUnknown || strong) {
		sc.weak = f
	}
	sc.held = append(sc.held, sc.hold(l))
	if strong || len(sc.held) >= detectWindow {
		sc.settle(sc.weak)
	}
	return nil
}

func (sc *scanner) readErr(err error) error {
	var tl *jsonl.LineTooLongError
	if errors.As(err, &tl) {
		return &DataError{Path: sc.path, Line: tl.Line, Msg: fmt.Sprintf("line longer than %d bytes", tl.Max)}
	}
	return fmt.Errorf("%s: %w", sc.path, err)
}

// finish ends the scan of what lr read. The pending last line, when long, is read from its
// own memory, freed once the scan has done with it.
func (sc *scanner) finish(lr *jsonl.LineReader) (*Result, error) {
	var pending *scanLine
	if p, ok := lr.Pending(); ok {
		pending = &scanLine{Line: p}
		pending.Release, _ = lr.Take()
		defer pending.Free()
	}
	return sc.finishAt(pending, lr.Offset())
}

// finishAt ends the scan of a file of size bytes whose last line, pending if not nil, has no
// line end.
func (sc *scanner) finishAt(pending *scanLine, size int64) (*Result, error) {
	st := sc.st
	if p := pending; p != nil && (sc.format.Native() || (sc.rd == nil && sc.weak.Native())) && jsonl.Valid(conv.TrimBOM(p.Bytes)) {
		// Claude Code, Codex and pi read a last record that lacks only its newline as a
		// record (checked through resume.sh: cmd/agents_test.go, a compaction's append cut
		// short): ctxc reads their files as they do.
		if err := sc.line(p, true); err != nil {
			return nil, err
		}
		pending = nil
	}
	if p := pending; p != nil {
		if b := bytes.TrimLeft(p.Bytes, " \t\r"); len(b) > 0 && b[0] == '{' {
			st.Pending = true
			st.Lines++
			if sc.opts.Warn != nil {
				sc.opts.Warn(Warning{Path: sc.path, Line: p.Num, Msg: "last line has no newline yet (still being written?): not read"})
			}
		} else {
			// Not the start of a JSON object: not a record being written, just bad data.
			st.Lines++
			if err := sc.invalid(p.Num, p.Bytes); err != nil {
				return nil, err
			}
		}
	}
	if st.Lines > 0 && st.BadLines == st.Lines && sc.rd == nil {
		return nil, &DataError{Path: sc.path, Line: st.BadLineNums[0], Msg: "no valid JSON line: not a JSONL transcript"}
	}
	if sc.rd == nil {
		if len(sc.held) > 0 && sc.weak == FormatUnknown {
			return nil, &DataError{Path: sc.path, Line: sc.held[0].line.Num, Msg: "no transcript records found (not a known agent format or chat message list)"}
		}
		sc.settle(sc.weak)
	}
	st.Bytes = size
	refs := sc.rd.Finish(st)
	if st.Format == FormatUnknown {
		st.Format = sc.format
	}
	for _, r := range refs {
		st.EffTokens += int64(r.Tokens)
		st.EffMessages += int(r.Msgs)
	}
	st.Finish(sc.opts.Window)
	return &Result{Stats: st, refs: refs, reader: sc.rd}, nil
}

// scanFrom scans the lines lr reads. A long line is read into memory of its own
// (OwnLongLines), parsed there, and freed once read, or held there until the format is known.
func scanFrom(lr *jsonl.LineReader, path string, opts Options, format Format) (*Result, error) {
	lr.OwnLongLines()
	defer lr.Free()
	sc := newScanner(path, opts, format)
	defer sc.releaseHeld() // held lines not settled: the scan failed
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, sc.readErr(err)
		}
		sl := scanLine{Line: l}
		sl.Release, _ = lr.Take()
		err = sc.line(&sl, jsonl.Valid(l.Bytes))
		sl.Free()
		if err != nil {
			return nil, err
		}
	}
	return sc.finish(lr)
}

// invalid takes a line that is not valid JSON. After a valid line, it is a bad line of a
// transcript (invalidLine). Before any: a first line that opens a JSON array or a pretty-printed
// document says the file is not JSONL, and garbageLines such lines say it is not a transcript,
// each in one error; fewer are held, warned about once a valid line follows.
func (sc *scanner) invalid(num int, line []byte) error {
	if sc.anyValid {
		return invalidLine(sc.st, sc.path, num, "not valid JSON", sc.opts)
	}
	if len(sc.preface) == 0 {
		if msg := notJSONL(line); msg != "" {
			return &DataError{Path: sc.path, Line: num, Msg: msg}
		}
	}
	if sc.opts.Strict {
		return &DataError{Path: sc.path, Line: num, Msg: "not valid JSON"}
	}
	sc.st.BadLine(num)
	sc.preface = append(sc.preface, Warning{Path: sc.path, Line: num, Msg: "not valid JSON: skipped"})
	if len(sc.preface) >= garbageLines {
		return &DataError{Path: sc.path, Line: sc.preface[0].Line, Msg: garbageMsg()}
	}
	return nil
}

// garbage is the error of Detect for a file that line, not valid JSON, shows not to be a
// transcript, as the scan says it (scanner.invalid); seen and bad count the valid and invalid
// lines before it, firstBad the number of the first invalid one.
func garbage(path string, l jsonl.Line, seen, bad, firstBad int) error {
	switch {
	case seen > 0:
		return nil
	case bad == 0:
		if msg := notJSONL(l.Bytes); msg != "" {
			return &DataError{Path: path, Line: l.Num, Msg: msg}
		}
	case bad+1 >= garbageLines:
		return &DataError{Path: path, Line: firstBad, Msg: garbageMsg()}
	}
	return nil
}

// garbageMsg says that a file's first lines are not JSON.
func garbageMsg() string {
	return fmt.Sprintf("not a JSONL transcript (its first %d lines are not JSON)", garbageLines)
}

// valid notes a valid line: the warnings held for the invalid lines before it are given.
func (sc *scanner) valid() {
	if sc.anyValid {
		return
	}
	sc.anyValid = true
	if sc.opts.Warn != nil {
		for _, w := range sc.preface {
			sc.opts.Warn(w)
		}
	}
	sc.preface = nil
}

// notJSONL says what a file whose first line is not valid JSON is, when that line shows it is
// a JSON document written over several lines ("" when it does not).
func notJSONL(first []byte) string {
	b := bytes.TrimSpace(conv.TrimBOM(first))
	switch {
	case len(b) > 0 && b[0] == '[':
		return "a JSON array (pretty-printed?), not a JSONL transcript (want one JSON object per line)"
	case len(b) == 1 && b[0] == '{':
		return "a pretty-printed JSON object, not a JSONL transcript (want one JSON object per line)"
	}
	return ""
}

func invalidLine(st *Stats, path string, num int, msg string, opts Options) error {
	if opts.Strict {
		return &DataError{Path: path, Line: num, Msg: msg}
	}
	st.BadLine(num)
	if opts.Warn != nil {
		opts.Warn(Warning{Path: path, Line: num, Msg: msg + ": skipped"})
	}
	return nil
}

// contextFinisher is a reader whose agent adds to the context it rebuilds (Codex answers calls
// left open).
type contextFinisher interface {
	FinishContext(ms []Message) []Message
}

// Messages re-reads the lines of the effective context from f and returns its messages, in
// order, with their text, as the agent would send them.
func (res *Result) Messages(f io.ReaderAt) ([]Message, error) {
	ms, err := res.messages(f)
	if err != nil {
		return nil, err
	}
	if cf, ok := res.reader.(contextFinisher); ok {
		ms = cf.FinishContext(ms)
	}
	return ms, nil
}

// messages re-reads the context's lines. Lines are independent, so two workers parse halves
// of the list.
func (res *Result) messages(f io.ReaderAt) ([]Message, error) {
	if g, ok := res.reader.(*genericReader); ok && g.keep {
		return g.kept, nil
	}
	if c, ok := res.reader.(*claude.Reader); ok && c.Keeps() {
		out := make([]Message, 0, len(res.refs))
		for _, r := range res.refs {
			out = append(out, c.Kept(r.Line))
		}
		return mergeSplitAssistant(out), nil
	}
	refs := res.refs
	const minParallel = 256
	if len(refs) < minParallel {
		out, err := res.materialize(f, refs)
		if err != nil {
			return nil, err
		}
		return mergeSplitAssistant(out), nil
	}
	half := len(refs) / 2
	var first []Message
	var firstErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		first, firstErr = res.materialize(f, refs[:half])
	}()
	second, err := res.materialize(f, refs[half:])
	<-done
	if firstErr != nil {
		return nil, firstErr
	}
	if err != nil {
		return nil, err
	}
	return mergeSplitAssistant(append(first, second...)), nil
}

func (res *Result) materialize(f io.ReaderAt, refs []ref) ([]Message, error) {
	out := make([]Message, 0, len(refs))
	for _, r := range refs {
		if r.Size <= 0 {
			ms, err := res.reader.Materialize(nil, r)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
			continue
		}
		buf := make([]byte, r.Size) // owned: messages may keep substrings of it
		if _, err := f.ReadAt(buf, r.Off); err != nil && !(errors.Is(err, io.EOF) && len(buf) == int(r.Size)) {
			return nil, fmt.Errorf("%s: re-reading line %d: %w", res.Stats.Path, r.Line, err)
		}
		b := conv.TrimLine(buf)
		if r.Off == 0 {
			b = conv.TrimBOM(b)
		}
		ms, err := res.reader.Materialize(b, r)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", res.Stats.Path, r.Line, err)
		}
		out = append(out, ms...)
	}
	return out, nil
}

// readFile scans a file and returns its effective context (ctxc load).
func readFile(path string, opts Options) (*Result, []Message, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	text, size, err := f.ReaderAt()
	if err != nil {
		return nil, nil, err
	}
	res, err := scanLines(io.NewSectionReader(text, 0, size), path, opts)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := res.Messages(text)
	return res, msgs, err
}

// mergeSplitAssistant joins consecutive assistant messages that share a provider message id:
// Claude Code writes one line per content block of one API response.
func mergeSplitAssistant(ms []Message) []Message {
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Role == RoleAssistant && m.MsgID != "" && out[n-1].Role == RoleAssistant && out[n-1].MsgID == m.MsgID {
			out[n-1].Absorb(&m)
			continue
		}
		out = append(out, m)
	}
	return out
}

// Stat states a session file as OpenFile would open it: os.Stat, or the export of an OpenClaw
// store's session.
func Stat(path string) (os.FileInfo, error) {
	if sessionstore.IsSessionName(path) {
		return sessionstore.StatSession(path)
	}
	return os.Stat(path)
}

// minRangesFile is the size from which ScanFile reads a file in ranges: below it, the ranges'
// workers and windows cost more than they save.
const minRangesFile = 8 << 20

// LineSpan is the part of the file that the context lines from line from up to (not including)
// line before span: from the start of line from to the end of the last context line before
// line before (its terminator included), and that line's number. before <= 0 means no bound.
// ok is false when line from is not a line of the context. Compaction hashes this span as the
// source of a summary: `sed -n 'FROM,LASTp' FILE | sha256sum` gives the same digest.
func (res *Result) LineSpan(from, before int) (start, end int64, last int, ok bool) {
	for _, r := range res.refs {
		line := int(r.Line)
		switch {
		case line == from && !ok:
			start, end, last, ok = r.Off, r.Off+int64(r.Size), line, true
		case ok && line > last && (before <= 0 || line < before):
			end, last = r.Off+int64(r.Size), line
		}
	}
	return start, end, last, ok
}

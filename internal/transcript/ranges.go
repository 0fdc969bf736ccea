package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/ctxc/ctxc/internal/agent/gemini"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// rangeBytes is the size of the ranges scanFileRanges splits a file into, and maxWindowBytes bounds
// the bytes of the ranges in flight (mapped or buffered) whatever the number of cores.
const (
	rangeBytes     = 2 << 20
	rangeSlack     = 128 << 10
	maxWindowBytes = 24 << 20
)

// lineReaderBuf is jsonl.LineReader's buffer size: jsonl.LineReader checks the line cap only on lines that
// do not fit its buffer, and scanFileRanges does the same so that both give the same answers.
const lineReaderBuf = 1 << 20

// maxLineEnd is the longest line end, "\r\n": the line cap does not count it.
const maxLineEnd = len("\r\n")

// How ranges are cut and held: a window goes at most 1/rangeSlackShare of its range past it;
// besides the range each worker reads, rangesWaiting more may wait to be merged, and at least
// minRangesInFlight ranges are in flight (one merged while the next is read) whatever their
// size; a worker sizes a range's lines for 1/linesHintMargin more than its last range had.
const (
	rangeSlackShare   = 16
	rangesWaiting     = 2
	minRangesInFlight = 2
	linesHintMargin   = 4
)

// A line that goes on past its range's window is read into a buffer of its own in steps as
// long as what it has read so far (the buffer doubles), from ownLineMinStep up to
// ownLineMaxStep bytes a read.
const (
	ownLineMinStep = 64 << 10
	ownLineMaxStep = 64 << 20
)

// inPlaceFrom: a line of a mapped file longer than this is read in place (mapPastWindow) rather
// than copied on: a mapping per line costs more than a copy of a few hundred KB, and much less
// than the copies and the doubled buffer of a line of 100 MB (stats of such a line: 270 → 134 MB
// of peak RSS, 6–10 s → 1.0–1.7 s; docs/performance.md).
const inPlaceFrom = 4 << 20

// scanFileRanges is scanLines for a file that can be read at any offset: the file is split into ranges
// of a few MB at line boundaries, and workers (one per core) read, validate and walk the lines
// of each range in parallel: per line, the format's whole walk (the Claude Code and plain
// message readers) or at least the validation (the others). The caller's goroutine then takes
// the ranges' lines in file order and feeds them to the same format reader as scanLines, whose
// per-line work is then a few map and counter updates. State carried from line to line (Claude
// Code's split assistant lines and parentUuid chain, pi's tree, Codex turns, ctxc markers) is
// thus kept by one reader in file order, as in scanLines: the results are scanLines', line for line.
// Ranges are streamed: at most about two per worker are held at once, so memory does not grow
// with the file (only with its longest line).
func scanFileRanges(f io.ReaderAt, size int64, path string, opts Options) (*Result, error) {
	return scanRanges(f, size, path, opts, rangeBytes, runtime.GOMAXPROCS(0))
}

// lineBufs holds the buffers of lines that cross a range's end, for the next ranges; one
// longer than maxPooledLine (a rare huge line) is left to the collector.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledLine = 4 << 20

// rangeResult is what a worker made of one range.
type rangeResult struct {
	lines   []scanLine
	valid   []bool
	pre     []preparsed
	claude  []claude.Line // the walks of Claude Code lines, which pre points to
	gemini  []gemini.Pre  // the walks of Gemini CLI message records, which pre points to
	release func()        // gives back the window the lines' bytes are in, and own
	own     *[]byte       // the bytes of a last line that goes on past the range
	count   int           // physical lines that start in the range (blank ones included)
	pending *scanLine     // an unterminated last line (the file's last range only)
	err     error         // a read error, or a line over the cap (Line is relative to the range)
	errLine int           // for a jsonl.LineTooLongError: the line's index among the range's physical lines
}

// scanFileRangesFrom is scanFileRanges of the lines from byte at.off of the file on (the start
// of a line), numbered after the at.lines lines before it and read as at.format: a load's lines
// after the newest marker.
func scanFileRangesFrom(f io.ReaderAt, at rangeStart, size int64, path string, opts Options) (*Result, error) {
	return scanRangesAt(f, at, size, path, opts, rangeBytes, runtime.GOMAXPROCS(0))
}

// rangeStart is where a scan in ranges starts: a line's start, the number of lines before it,
// and the format the lines are read as (FormatUnknown: detected from them).
type rangeStart struct {
	off    int64
	lines  int
	format Format
}

func scanRanges(f io.ReaderAt, size int64, path string, opts Options, chunk int64, workers int) (*Result, error) {
	return scanRangesAt(f, rangeStart{format: opts.Format}, size, path, opts, chunk, workers)
}

func scanRangesAt(f io.ReaderAt, at rangeStart, size int64, path string, opts Options, chunk int64, workers int) (*Result, error) {
	maxLine := jsonl.DefaultMaxLine
	if opts.MaxLine > 0 {
		maxLine = opts.MaxLine
	}
	workers = max(workers, 1)
	pre, text := walkAheadFormat(f, size, path, opts)
	n := int((size - at.off + chunk - 1) / chunk)
	// The tests' tiny ranges have no slack: their lines cross windows.
	rw := &rangeWork{src: newWindowSource(f), origin: at.off, size: size, chunk: chunk, slack: min(rangeSlack, chunk/rangeSlackShare),
		maxLine: maxLine, pre: pre, text: text, tokens: rangeTokens(workers, chunk)}
	m := &rangeMerger{sc: newScanner(path, opts, at.format), path: path, ready: map[int]*rangeResult{}, base: at.lines}
	if src, ok := rw.src.(inPlace); ok {
		m.sc.mapLine = src.mapWindow
	}
	done := make(chan struct{})
	m.stop = func() { close(done) }
	jobs := make(chan int)
	go rw.dispatch(n, jobs, done)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw.runWorker(jobs, m)
		}()
	}
	// A merge that fails stops the dispatcher, and the workers at their next range. Wait for
	// them all (they use f, which the caller closes next), then release what was not merged.
	wg.Wait()
	return m.result(n, size)
}

// walkAheadFormat is the format whose lines the workers walk ahead of the reader, and how much
// text they decode: for a load, the messages it keeps, with their text; for stats, the lines of
// the format the file starts with (counts only). FormatUnknown: the format's reader walks its
// lines itself, and the workers only validate them.
func walkAheadFormat(f io.ReaderAt, size int64, path string, opts Options) (Format, textMode) {
	pre, text := opts.keep, opts.keepText()
	if pre == FormatUnknown {
		text = conv.NoText
		pre = opts.Format
		if pre == FormatUnknown {
			pre, _ = detectAt(f, size, path, opts)
		}
	}
	if pre != FormatClaude && !pre.IsGeneric() && (pre != FormatGemini || text != conv.NoText) {
		pre = FormatUnknown
	}
	return pre, text
}

// rangeTokens makes the tokens of the ranges in flight. A range holds a window of the file
// (mapped pages, or a buffer) from when it is dispatched until it is merged: tokens bound them,
// and so memory, whatever the file's size. They are taken in file order, by the dispatcher, and
// given back in file order, by the merges.
func rangeTokens(workers int, chunk int64) chan struct{} {
	n := min(workers+rangesWaiting, max(minRangesInFlight, int(maxWindowBytes/chunk)))
	tokens := make(chan struct{}, n)
	for range n {
		tokens <- struct{}{}
	}
	return tokens
}

// dispatch hands the indexes of the n ranges to the workers in file order, each once it has a
// token, until all are handed out or done is closed (a merge failed).
func (w *rangeWork) dispatch(n int, jobs chan<- int, done <-chan struct{}) {
	defer close(jobs)
	for i := 0; i < n; i++ {
		select {
		case <-w.tokens:
		case <-done:
			return
		}
		select {
		case jobs <- i:
		case <-done:
			return
		}
	}
}

// runWorker is one worker: it reads and walks the ranges it is handed and delivers them to m,
// until there are no more or the scan has failed.
func (w *rangeWork) runWorker(jobs <-chan int, m *rangeMerger) {
	lines := 0 // the lines of this worker's last range: about as many in the next
	for i := range jobs {
		r := w.work(i, lines+lines/linesHintMargin)
		lines = len(r.lines)
		if !m.deliver(i, r) {
			return
		}
	}
}

// rangeMerger feeds the ranges' lines to the scanner in file order. There is no merging
// goroutine: the worker that delivers the next range in order merges it, and the ranges after
// it that are ready, while the other workers go on reading. The merge thus runs on the core
// whose caches hold the range it has just walked, and no range waits for a third goroutine
// to be scheduled.
type rangeMerger struct {
	mu      sync.Mutex
	sc      *scanner
	path    string
	ready   map[int]*rangeResult // delivered, waiting for the ranges before them
	next    int                  // the range to merge next
	merging bool                 // a worker is merging: the others only deliver
	base    int                  // physical lines before range next
	pending *scanLine            // an unterminated last line, copied
	err     error
	stop    func() // called once, on the first error: stops the dispatcher
}

// deliver hands over range i's result, merges what is in order when no other worker is
// merging, and reports whether the scan goes on.
func (m *rangeMerger) deliver(i int, r *rangeResult) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		r.release()
		return false
	}
	m.ready[i] = r
	if m.merging {
		return true
	}
	m.merging = true
	defer func() { m.merging = false }()
	for {
		r, ok := m.ready[m.next]
		if !ok {
			return true
		}
		delete(m.ready, m.next)
		m.next++
		m.mu.Unlock()
		err := faultsAsErrors(m.path, func() error { return m.merge(r) })
		m.mu.Lock()
		if err != nil {
			m.fail(err)
			return false
		}
	}
}

func (m *rangeMerger) fail(err error) {
	m.err = err
	m.stop()
}

// result is the scan's result once the workers have stopped: the first error (the ranges
// delivered but not merged are then released), else the scanner's finish, with the file's
// unterminated last line.
func (m *rangeMerger) result(n int, size int64) (*Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer m.sc.releaseHeld() // held lines not settled: the scan failed
	if m.err == nil && m.next < n {
		m.err = errors.New("ranges: a range was never merged") // a bug, never silent
	}
	if m.err != nil {
		for _, r := range m.ready {
			r.release()
		}
		return nil, m.err
	}
	var res *Result
	err := faultsAsErrors(m.path, func() (err error) {
		res, err = m.sc.finishAt(m.pending, size)
		return err
	})
	return res, err
}

// merge feeds one range's lines to the scanner and releases its window.
func (m *rangeMerger) merge(r *rangeResult) error {
	defer r.release()
	for k := range r.lines {
		l := &r.lines[k]
		l.Num += m.base
		if r.err == nil || k < r.errLine {
			if err := m.sc.line(l, r.valid[k]); err != nil {
				return err
			}
		}
	}
	if r.err != nil {
		var tl *jsonl.LineTooLongError
		if errors.As(r.err, &tl) {
			tl.Line += m.base
		}
		return m.sc.readErr(r.err)
	}
	if r.pending != nil {
		r.pending.Num += m.base
		p := *r.pending
		p.Bytes = append([]byte(nil), p.Bytes...) // read after the window is closed
		m.pending = &p
	}
	m.base += r.count
	return nil
}

// rangeWork is what every range's work shares: the file, how it is cut, what is walked.
type rangeWork struct {
	src         windowSource
	origin      int64 // where range 0 starts: the start of a line
	size, chunk int64
	slack       int64 // how far a window goes past its range
	maxLine     int
	pre         Format   // the format the workers walk ahead (FormatUnknown: validation only)
	text        textMode // how much text the walk decodes
	tokens      chan struct{}
}

// work reads and walks range i (a worker's job); linesHint sizes its lines.
func (w *rangeWork) work(i, linesHint int) (r *rangeResult) {
	start := w.origin + int64(i)*w.chunk
	end := min(start+w.chunk, w.size)
	src, pre, text, tokens := w.src, w.pre, w.text, w.tokens
	r = &rangeResult{lines: make([]scanLine, 0, linesHint)}
	release := func() {
		if r.own != nil && cap(*r.own) <= maxPooledLine {
			lineBufs.Put(r.own)
		}
		tokens <- struct{}{}
	}
	defer func() {
		if p := recover(); p != nil {
			err := faultError(p)
			if r.release != nil {
				r.release() // the window
			}
			r = &rangeResult{err: err, release: release}
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	readRange(r, src, w.size, start, end, w.slack, w.maxLine)
	if r.release != nil {
		rel := r.release
		r.release = func() { rel(); release() }
	} else {
		r.release = release
	}
	lines := len(r.lines)
	if r.err != nil {
		lines = r.errLine // the lines before a line over the cap are read
	}
	if lines > 0 {
		r.valid = make([]bool, lines)
		if pre != FormatUnknown {
			r.pre = make([]preparsed, lines)
			switch pre {
			case FormatClaude:
				r.claude = make([]claude.Line, lines)
			case FormatGemini:
				r.gemini = make([]gemini.Pre, lines)
			}
		}
		for k := range lines {
			l := &r.lines[k]
			r.valid[k] = jsonl.Valid(l.Bytes)
			if r.valid[k] && pre != FormatUnknown {
				var slots walkSlots
				if r.claude != nil {
					slots.claude = &r.claude[k]
				}
				if r.gemini != nil {
					slots.gemini = &r.gemini[k]
				}
				preparseInto(&r.pre[k], slots, pre, text, l)
				l.Pre = &r.pre[k]
			}
		}
	}
	return r
}

// readRange reads the lines that start in [start, end) of the file, the last one to its end
// even past end (into a buffer of its own). Line numbers are counted from the range's first
// line (1).
func readRange(r *rangeResult, src windowSource, size, start, end, slack int64, maxLine int) {
	// The range's first line starts at start if the byte before it ends a line, else after
	// the first newline at or after start; none before end: no line starts in the range.
	from := start
	if start > 0 {
		from = start - 1
	}
	need := int(end - from)
	// The window goes on a little past the range: the range's last line most often ends
	// there, and is then read in place rather than copied.
	buf, release, err := src.window(from, need+int(min(size-end, slack)))
	if err != nil {
		r.err = err
		return
	}
	r.release = release // set at once: a fault while reading the window still releases it
	first := 0
	if start > 0 {
		k := bytes.IndexByte(buf[:need], '\n')
		if k < 0 {
			return // inside a line that started before
		}
		first = k + 1
	}
	rl := rangeLines{r: r, src: src, size: size, from: from, buf: buf, maxLine: maxLine}
	rl.read(first, need)
}

// rangeLines reads a range's lines out of its window into r.
type rangeLines struct {
	r       *rangeResult
	src     windowSource
	size    int64  // the file's
	from    int64  // the file offset of buf[0]
	buf     []byte // the window
	maxLine int
}

// read reads the lines that start in buf[pos:need] and, unless a read fails or a line is over
// the cap (r.err), counts them in r.count.
func (rl *rangeLines) read(pos, need int) {
	num := 0
	for pos < need {
		off := rl.from + int64(pos)
		var line []byte
		terminated := false
		if k := bytes.IndexByte(rl.buf[pos:], '\n'); k >= 0 {
			line, terminated = rl.buf[pos:pos+k+1], true
			pos += k + 1
		} else {
			var ok bool
			if line, terminated, ok = rl.readPastWindow(pos); !ok {
				return
			}
			pos = need
		}
		num++
		if !rl.add(line, off, num, terminated) {
			return
		}
	}
	rl.r.count = num
}

// readPastWindow reads the line at buf[pos:], which goes on past the window (rarely: most end in
// the slack), to its end into a buffer of its own (r.own), reused by later ranges once this one
// is merged; past inPlaceFrom bytes, in place when the file is mapped (mapPastWindow). It stops
// early once the line is over the cap (it is then refused whole) and at the file's end (the line
// is unterminated); ok is false when a read fails (r.err).
func (rl *rangeLines) readPastWindow(pos int) (line []byte, terminated, ok bool) {
	r := rl.r
	r.own = lineBufs.Get().(*[]byte)
	own := append((*r.own)[:0], rl.buf[pos:]...)
	at := rl.from + int64(len(rl.buf))
	for at < rl.size {
		if len(own) >= inPlaceFrom {
			if line, terminated, ok := rl.mapPastWindow(pos); ok {
				*r.own = own[:0]
				return line, terminated, true
			}
		}
		step := min(int64(max(len(own), ownLineMinStep)), rl.size-at, ownLineMaxStep)
		k := len(own)
		own = growBytes(own, int(step))[:k+int(step)]
		*r.own = own
		if err := rl.src.readAt(own[k:], at); err != nil {
			r.err, r.errLine = err, len(r.lines)
			return nil, false, false
		}
		at += step
		if j := bytes.IndexByte(own[k:], '\n'); j >= 0 {
			own, terminated = own[:k+j+1], true
			break
		}
		if rl.overCap(len(own)) {
			break
		}
	}
	*r.own = own
	return own, terminated, true
}

// inPlace is a windowSource that can give a window of any length without copying it (a mapped
// file): a line of 100 MB is then read where it is, its pages faulted in from the page cache as
// the validator and the walk reach them, and none of it is held by the Go heap.
type inPlace interface {
	mapWindow(off int64, n int) ([]byte, func(), error)
}

// mapPastWindow is readPastWindow's read of the line at buf[pos:] in a window of its own, up
// to its end or the cap, released with the range's window; ok is false when the source is not
// mapped or mapping failed (the line is then copied).
func (rl *rangeLines) mapPastWindow(pos int) (line []byte, terminated, ok bool) {
	src, mapped := rl.src.(inPlace)
	if !mapped {
		return nil, false, false
	}
	off := rl.from + int64(pos)
	n := min(rl.size-off, int64(max(rl.maxLine+maxLineEnd, lineReaderBuf))+1) // (one byte past the cap: overCap sees it)
	data, release, err := src.mapWindow(off, int(n))
	if err != nil {
		return nil, false, false
	}
	if prev := rl.r.release; prev != nil {
		rl.r.release = func() { prev(); release() }
	} else {
		rl.r.release = release
	}
	if k := bytes.IndexByte(data, '\n'); k >= 0 {
		return data[:k+1], true, true
	}
	return data, false, true
}

// overCap tells whether a line of n bytes, its end included, is over the line cap, as
// jsonl.LineReader tells it.
func (rl *rangeLines) overCap(n int) bool {
	return n > rl.maxLine+maxLineEnd && n > lineReaderBuf
}

// add takes the range's num-th line, which starts at file offset off, with its line end when
// terminated, and reports whether the range's lines go on: a line over the cap ends them with
// its error; a blank line is only counted; the file's unterminated last line, unless blank, is
// kept apart (r.pending) for the scanner's finish.
func (rl *rangeLines) add(line []byte, off int64, num int, terminated bool) bool {
	r := rl.r
	lsize := len(line)
	if rl.overCap(lsize) {
		r.lines = append(r.lines, scanLine{Line: jsonl.Line{Num: num}})
		r.err, r.errLine = &jsonl.LineTooLongError{Line: num, Max: rl.maxLine}, len(r.lines)-1
		return false
	}
	b := line
	if off == 0 && bytes.HasPrefix(b, jsonl.BOM) {
		b = b[len(jsonl.BOM):]
	}
	if !terminated {
		if len(bytes.TrimSpace(b)) > 0 {
			r.pending = &scanLine{Line: jsonl.Line{Num: num, Offset: off, Size: len(b), Bytes: b}}
		}
		return true
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if !jsonl.IsBlank(b) {
		r.lines = append(r.lines, scanLine{Line: jsonl.Line{Num: num, Offset: off, Size: lsize, Bytes: b}})
	}
	return true
}

// windowSource gives the bytes of a file by ranges.
type windowSource interface {
	// window returns bytes [off, off+n) of the file and a function that releases them.
	window(off int64, n int) ([]byte, func(), error)
	readAt(b []byte, off int64) error
}

// memSource gives the windows of a text held in memory (an archived session's, memText) in
// place, as a mapped file's: no window and no long line is copied.
type memSource struct {
	f    io.ReaderAt
	text memText
	base int64 // offset of the reader's byte 0 in text
}

// newMemSource is the source of f's windows when f is a text in memory or a section of one.
func newMemSource(f io.ReaderAt) (*memSource, bool) {
	base := int64(0)
	if sr, ok := f.(*io.SectionReader); ok {
		var outer io.ReaderAt
		outer, base, _ = sr.Outer()
		f = outer
	}
	text, ok := f.(memText)
	if !ok {
		return nil, false
	}
	return &memSource{f: text, text: text, base: base}, true
}

func (s *memSource) window(off int64, n int) ([]byte, func(), error) { return s.mapWindow(off, n) }

func (s *memSource) mapWindow(off int64, n int) ([]byte, func(), error) {
	at := s.base + off
	if at < 0 || n < 0 || at+int64(n) > int64(len(s.text)) {
		return nil, nil, fmt.Errorf("reading at %d: %w", off, io.ErrUnexpectedEOF)
	}
	return s.text[at : at+int64(n) : at+int64(n)], func() {}, nil
}

func (s *memSource) readAt(b []byte, off int64) error { return readFull(s.f, b, s.base+off) }

// readerSource reads windows with ReadAt into buffers it reuses.
type readerSource struct {
	f    io.ReaderAt
	free chan []byte
}

func (s *readerSource) window(off int64, n int) ([]byte, func(), error) {
	var buf []byte
	select {
	case buf = <-s.free:
	default:
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if err := readFull(s.f, buf, off); err != nil {
		return nil, nil, err
	}
	return buf, func() {
		select {
		case s.free <- buf:
		default:
		}
	}, nil
}

func (s *readerSource) readAt(b []byte, off int64) error { return readFull(s.f, b, off) }

// faultsAsErrors runs fn, which reads a mapped file: a file cut short while mapped faults, and
// the fault becomes an error instead of a crash.
func faultsAsErrors(name string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %w", name, faultError(r))
		}
	}()
	return fn()
}

// faultError turns the panic of a memory fault in a mapped window into an error; any other
// panic (a bug, a nil pointer) goes on.
func faultError(p any) error {
	if f, ok := p.(interface{ Addr() uintptr }); ok && f.Addr() >= 1<<16 {
		return errors.New("the file changed while it was being read (cut short?)")
	}
	panic(p)
}

func readFull(f io.ReaderAt, b []byte, off int64) error {
	n, err := f.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF // the file shrank while being read
	}
	return fmt.Errorf("reading at %d: %w", off, err)
}

// growBytes returns b with room for n more bytes, moved once to a new array when it has not.
// (slices.Grow would do the same, but a build with the race detector allocates its appended
// zeroes apart, doubling what a long line costs there.)
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

package transcript

import (
	"io"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The stream pipeline's batches: a batch holds about streamBatchBytes of lines, and at most
// streamBatchesInFlight batches exist, so memory stays bounded whatever the input's size. A
// line longer than the line reader's buffer (1 MiB) is read into memory of its own, which the
// batch takes over, instead of being copied into the batch's buffer.
const (
	streamBatchBytes      = 2 << 20
	streamBatchesInFlight = 4
)

// streamValidators is the number of validating goroutines: with the parser that makes three
// busy goroutines on two cores, so the validation work spreads over whichever core the parser
// leaves idle.
const streamValidators = 2

// Scan reads a stream (standard input, a pipe) for its statistics, in a pipeline: one goroutine
// reads lines into batches, others validate them (jsonl.Valid, a third of the work), and the
// caller's goroutine parses them in order. At most a few batches are in flight, so memory stays
// bounded. A long line is read once, into memory of its own (jsonl.LineReader.OwnLongLines),
// and parsed there: a line of 100 MB costs its size, not copies of it. A file is better read
// with ScanFile.
func Scan(r io.Reader, path string, opts Options) (*Result, error) {
	lr := jsonl.NewLineReader(r)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	lr.OwnLongLines()
	p := newStreamPipeline(lr, opts)
	defer p.stop()
	go p.read()
	for range streamValidators {
		go p.validate()
	}
	return p.parse(newScanner(path, opts, opts.Format))
}

// streamBatch is a run of consecutive lines with their bytes, on its way from the reader
// through a validator to the parser, then back to the reader for reuse.
type streamBatch struct {
	lines []scanLine
	valid []bool
	buf   []byte // the lines' bytes, but for the long lines read into memory of their own
	size  int    // the bytes of all its lines
	err   error  // the read error that ended the batch (io.EOF excluded)
	// pending, in the last batch, frees the memory of the unterminated last line when it was
	// long (read by the parser's finish).
	pending   func()
	validated chan struct{}
}

// free frees the memory of the batch's long lines that nothing took.
func (b *streamBatch) free() {
	for i := range b.lines {
		b.lines[i].Free()
	}
	if b.pending != nil {
		b.pending()
		b.pending = nil
	}
}

// streamPipeline connects the stages of Scan: free batches go to the reader, the
// reader sends each filled batch both to the parser (in order) and to whichever validator is
// free, and the parser waits for a batch's validation before it parses it.
type streamPipeline struct {
	lr         *jsonl.LineReader
	opts       Options
	free       chan *streamBatch
	toValidate chan *streamBatch
	toParse    chan *streamBatch
	done       chan struct{} // closed when the parser returns: the other stages stop
}

// newStreamPipeline makes the pipeline's channels and its batches.
func newStreamPipeline(lr *jsonl.LineReader, opts Options) *streamPipeline {
	p := &streamPipeline{lr: lr, opts: opts,
		free:       make(chan *streamBatch, streamBatchesInFlight),
		toValidate: make(chan *streamBatch, streamBatchesInFlight),
		toParse:    make(chan *streamBatch, streamBatchesInFlight),
		done:       make(chan struct{}),
	}
	for range streamBatchesInFlight {
		// A batch's buffer grows as lines fill it (up to about streamBatchBytes): a short
		// stream is not charged the four full batches.
		p.free <- &streamBatch{validated: make(chan struct{}, 1)}
	}
	return p
}

// read is the reader stage: it fills free batches with lines until the input ends, fails or
// the parser returns, and hands each to a validator and to the parser. A batch it holds when the
// parser has returned has its long lines freed, once validated when a validator has it.
func (p *streamPipeline) read() {
	defer close(p.toValidate)
	defer close(p.toParse)
	defer p.lr.Free() // a long line not handed over: one over the cap
	for {
		var b *streamBatch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		p.fill(b)
		last := len(b.lines) == 0 || b.err != nil || b.size < streamBatchBytes
		// To whichever validator is free, and in order to the parser.
		select {
		case p.toValidate <- b:
		case <-p.done:
			b.free()
			return
		}
		select {
		case p.toParse <- b:
		case <-p.done:
			<-b.validated
			b.free()
			return
		}
		if last {
			return
		}
	}
}

// fill reads lines into b until it holds streamBatchBytes or the input ends (b.err holds a read
// error). The line reader reuses its buffer, so each line is copied into the batch's buffer,
// but a long line, whose own memory the batch takes over. At the input's end, the memory of a
// long unterminated last line is taken for the parser's finish.
func (p *streamPipeline) fill(b *streamBatch) {
	b.lines, b.valid, b.buf, b.size, b.err = b.lines[:0], b.valid[:0], b.buf[:0], 0, nil
	for b.size < streamBatchBytes {
		l, err := p.lr.Next()
		if err != nil {
			if err != io.EOF {
				b.err = err
			} else if release, ok := p.lr.Take(); ok {
				b.pending = release
			}
			return
		}
		line := scanLine{Line: l}
		if release, ok := p.lr.Take(); ok {
			line.Release = release
		} else {
			start := len(b.buf)
			b.buf = append(b.buf, l.Bytes...)
			line.Bytes = b.buf[start:len(b.buf):len(b.buf)]
		}
		b.size += len(l.Bytes)
		b.lines = append(b.lines, line)
	}
}

// validate is a validator stage: it checks that each line of the batches it takes is JSON,
// and for a load also parses its message with the text, off the reader's and the parser's
// goroutines (each line stands alone).
func (p *streamPipeline) validate() {
	for b := range p.toValidate {
		valid := make([]bool, len(b.lines))
		for i := range b.lines {
			valid[i] = jsonl.Valid(b.lines[i].Bytes)
			if valid[i] && p.opts.keep != FormatUnknown {
				b.lines[i].Pre = preparse(p.opts.keep, p.opts.keepText(), &b.lines[i])
			}
		}
		b.valid = valid
		b.validated <- struct{}{}
	}
}

// parse is the parser stage, on the caller's goroutine: it feeds the batches' lines to sc in
// input order, each batch once validated, and gives the batch back to the reader. A long line's
// memory is freed once the line is read, unless the scanner holds the line.
func (p *streamPipeline) parse(sc *scanner) (*Result, error) {
	defer sc.releaseHeld() // held lines not settled: the scan failed
	var pendingMem func()
	for b := range p.toParse {
		<-b.validated
		pendingMem, b.pending = b.pending, nil
		for i := range b.lines {
			err := sc.line(&b.lines[i], b.valid[i])
			b.lines[i].Free()
			if err != nil {
				b.free()
				return nil, err
			}
		}
		if b.err != nil {
			return nil, sc.readErr(b.err)
		}
		p.free <- b
	}
	pending := &scanLine{Release: pendingMem}
	defer pending.Free()
	if l, ok := p.lr.Pending(); ok {
		pending.Line = l
		return sc.finishAt(pending, p.lr.Offset())
	}
	return sc.finishAt(nil, p.lr.Offset())
}

// stop ends the pipeline once the parser has returned: the reader and the validators stop,
// and the long lines of the batches still on their way to the parser are freed once validated
// (a validator may be reading them).
func (p *streamPipeline) stop() {
	close(p.done)
	go func() {
		for b := range p.toParse {
			<-b.validated
			b.free()
		}
	}()
}

// preOf is what a worker's walk found of l (nil: nothing, the reader parses the line).
func preOf(l *scanLine) *preparsed {
	p, _ := l.Pre.(*preparsed)
	return p
}

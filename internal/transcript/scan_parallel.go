package transcript

import (
	"io"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The stream pipeline's batches: a batch holds about streamBatchBytes of lines, and at most
// streamBatchesInFlight batches exist, so memory stays bounded whatever the input's size. A
// line longer than streamOwnLineBytes gets a buffer of its own instead of filling most of a
// batch's.
const (
	streamBatchBytes      = 2 << 20
	streamBatchesInFlight = 4
	streamOwnLineBytes    = streamBatchBytes / 2
)

// streamValidators is the number of validating goroutines: with the parser that makes three
// busy goroutines on two cores, so the validation work spreads over whichever core the parser
// leaves idle.
const streamValidators = 2

// Scan reads a stream (standard input, a pipe) for its statistics, in a pipeline: one goroutine
// reads lines into batches, others validate them (jsonl.Valid, a third of the work), and the
// caller's goroutine parses them in order. At most a few batches are in flight, so memory stays
// bounded. A file is better read with ScanFile.
func Scan(r io.Reader, path string, opts Options) (*Result, error) {
	lr := jsonl.NewLineReader(r)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	p := newStreamPipeline(lr, opts)
	defer close(p.done)
	go p.read()
	for range streamValidators {
		go p.validate()
	}
	return p.parse(newScanner(path, opts, opts.Format))
}

// streamBatch is a run of consecutive lines with their bytes, on its way from the reader
// through a validator to the parser, then back to the reader for reuse.
type streamBatch struct {
	lines     []scanLine
	valid     []bool
	buf       []byte // the lines' bytes, but for those longer than streamOwnLineBytes
	err       error  // the read error that ended the batch (io.EOF excluded)
	validated chan struct{}
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
		p.free <- &streamBatch{buf: make([]byte, 0, streamBatchBytes), validated: make(chan struct{}, 1)}
	}
	return p
}

// read is the reader stage: it fills free batches with lines until the input ends, fails or
// the parser returns, and hands each to the parser and a validator.
func (p *streamPipeline) read() {
	defer close(p.toValidate)
	defer close(p.toParse)
	for {
		var b *streamBatch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		p.fill(b)
		last := len(b.lines) == 0 || b.err != nil || len(b.buf) < streamBatchBytes
		// In order to the parser, and to whichever validator is free.
		select {
		case p.toParse <- b:
		case <-p.done:
			return
		}
		select {
		case p.toValidate <- b:
		case <-p.done:
			return
		}
		if last {
			return
		}
	}
}

// fill reads lines into b until its buffer is full or the input ends (b.err holds a read
// error). The line reader reuses its buffer, so each line is copied: into the batch's buffer,
// or into a buffer of its own when it is huge.
func (p *streamPipeline) fill(b *streamBatch) {
	b.lines, b.valid, b.buf, b.err = b.lines[:0], b.valid[:0], b.buf[:0], nil
	for len(b.buf) < streamBatchBytes {
		l, err := p.lr.Next()
		if err != nil {
			if err != io.EOF {
				b.err = err
			}
			return
		}
		if len(l.Bytes) > streamOwnLineBytes {
			l.Bytes = append([]byte(nil), l.Bytes...)
		} else {
			start := len(b.buf)
			b.buf = append(b.buf, l.Bytes...)
			l.Bytes = b.buf[start:len(b.buf):len(b.buf)]
		}
		b.lines = append(b.lines, scanLine{Line: l})
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
				b.lines[i].pre = preparse(p.opts.keep, p.opts.keepText(), &b.lines[i])
			}
		}
		b.valid = valid
		b.validated <- struct{}{}
	}
}

// parse is the parser stage, on the caller's goroutine: it feeds the batches' lines to sc in
// input order, each batch once validated, and gives the batch back to the reader.
func (p *streamPipeline) parse(sc *scanner) (*Result, error) {
	for b := range p.toParse {
		<-b.validated
		for i := range b.lines {
			if err := sc.line(&b.lines[i], b.valid[i]); err != nil {
				return nil, err
			}
		}
		if b.err != nil {
			return nil, sc.readErr(b.err)
		}
		p.free <- b
	}
	return sc.finish(p.lr)
}

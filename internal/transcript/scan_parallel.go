package transcript

import (
	"github.com/ctxc/ctxc/internal/jsonl"
	"io"
)

// ScanParallel is Scan in a pipeline for large inputs: one goroutine reads lines into batches,
// another validates them (jsonl.Valid, a third of the work), and the caller's goroutine
// parses them in order. At most a few batches are in flight, so memory stays bounded.
func ScanParallel(r io.Reader, path string, opts Options) (*Result, error) {
	lr := jsonl.NewLineReader(r)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	const batchBytes = 2 << 20
	const inFlight = 4

	type batch struct {
		lines     []scanLine
		valid     []bool
		buf       []byte
		err       error
		validated chan struct{}
	}
	free := make(chan *batch, inFlight)
	for i := 0; i < inFlight; i++ {
		free <- &batch{buf: make([]byte, 0, batchBytes), validated: make(chan struct{}, 1)}
	}
	toValidate := make(chan *batch, inFlight)
	toParse := make(chan *batch, inFlight)
	done := make(chan struct{})
	defer close(done)

	go func() { // reader
		defer close(toValidate)
		defer close(toParse)
		for {
			var b *batch
			select {
			case b = <-free:
			case <-done:
				return
			}
			b.lines, b.valid, b.buf, b.err = b.lines[:0], b.valid[:0], b.buf[:0], nil
			for len(b.buf) < batchBytes {
				l, err := lr.Next()
				if err != nil {
					if err != io.EOF {
						b.err = err
					}
					break
				}
				if len(l.Bytes) > batchBytes/2 {
					l.Bytes = append([]byte(nil), l.Bytes...) // a huge line gets its own buffer
				} else {
					start := len(b.buf)
					b.buf = append(b.buf, l.Bytes...)
					l.Bytes = b.buf[start:len(b.buf):len(b.buf)]
				}
				b.lines = append(b.lines, scanLine{Line: l})
			}
			last := len(b.lines) == 0 || b.err != nil || len(b.buf) < batchBytes
			// In order to the parser, and to whichever validator is free.
			select {
			case toParse <- b:
			case <-done:
				return
			}
			select {
			case toValidate <- b:
			case <-done:
				return
			}
			if last {
				return
			}
		}
	}()
	// Two validators: with the parser that makes three busy goroutines on two cores, so the
	// validation work spreads over whichever core the parser leaves idle.
	for w := 0; w < 2; w++ {
		go func() {
			for b := range toValidate {
				valid := make([]bool, len(b.lines))
				for i := range b.lines {
					valid[i] = jsonl.Valid(b.lines[i].Bytes)
					if valid[i] && opts.keep != FormatUnknown {
						// Loading: parse messages with their text here, off the reader's
						// goroutine (each line stands alone).
						b.lines[i].pre = preparse(opts.keep, opts.keepText(), &b.lines[i])
					}
				}
				b.valid = valid
				b.validated <- struct{}{}
			}
		}()
	}
	sc := newScanner(path, opts, opts.Format)
	for b := range toParse {
		<-b.validated
		for i := range b.lines {
			if err := sc.line(&b.lines[i], b.valid[i]); err != nil {
				return nil, err
			}
		}
		if b.err != nil {
			return nil, sc.readErr(b.err)
		}
		free <- b
	}
	return sc.finish(lr)
}

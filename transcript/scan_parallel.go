package transcript

import (
	"io"

	"github.com/tidwall/gjson"
)

// ScanParallel is Scan in a pipeline for large inputs: one goroutine reads lines into batches,
// another validates them (gjson.ValidBytes, a third of the work), and the caller's goroutine
// parses them in order. At most a few batches are in flight, so memory stays bounded.
func ScanParallel(r io.Reader, path string, opts Options) (*Result, error) {
	lr := NewLineReader(r)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	const batchBytes = 2 << 20
	const inFlight = 4

	type batch struct {
		lines []Line
		valid []bool
		buf   []byte
		err   error
	}
	free := make(chan *batch, inFlight)
	for i := 0; i < inFlight; i++ {
		free <- &batch{buf: make([]byte, 0, batchBytes)}
	}
	toValidate := make(chan *batch, inFlight)
	toParse := make(chan *batch, inFlight)
	done := make(chan struct{})
	defer close(done)

	go func() { // reader
		defer close(toValidate)
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
				b.lines = append(b.lines, l)
			}
			last := len(b.lines) == 0 || b.err != nil || len(b.buf) < batchBytes
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
	go func() { // validator
		defer close(toParse)
		for b := range toValidate {
			for i := range b.lines {
				b.valid = append(b.valid, gjson.ValidBytes(b.lines[i].Bytes))
			}
			select {
			case toParse <- b:
			case <-done:
				return
			}
		}
	}()
	sc := newScanner(path, opts, opts.Format)
	for b := range toParse {
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

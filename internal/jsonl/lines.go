package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxLine is the largest line the reader accepts. Real transcripts carry single lines of
// tens of MB (inline base64 images, huge tool results); the cap only stops a runaway file (say,
// a binary without newlines) from exhausting memory.
const DefaultMaxLine = 1 << 30

// Line is one physical line of a JSONL file.
type Line struct {
	Num    int    // 1-based line number
	Offset int64  // byte offset of the line's first byte in the file
	Size   int    // bytes the line occupies in the file, including its line terminator
	Bytes  []byte // content without BOM, CR and LF; valid only until the next call to Next
}

// LineTooLongError reports a line longer than the reader's cap.
type LineTooLongError struct {
	Line int
	Max  int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d: longer than %d bytes", e.Line, e.Max)
}

// LineReader streams lines of any length with memory bounded by the longest line. It skips blank
// lines, strips a UTF-8 BOM at the start of the file and CR before LF, and holds back an
// unterminated last line: a live agent may still be writing it, so it is reported through
// Pending rather than as a record.
type LineReader struct {
	r       *bufio.Reader
	max     int
	num     int
	off     int64
	buf     []byte // the current line: in bufio's buffer, or acc
	acc     []byte // gathers lines longer than bufio's buffer
	pending []byte
	pendOff int64
	err     error
}

// NewLineReader returns a reader over r with the default line cap. Its buffer is 1 MiB, or the
// size of r when r says it (io.SectionReader, a regular file) and is smaller: searching an
// archive of small sessions made a fresh 1 MiB buffer per file, and the page faults of those
// buffers were most of the time (lines longer than the buffer are gathered: acc).
func NewLineReader(r io.Reader) *LineReader { return NewLineReaderSize(r, 1<<20) }

// NewLineReaderSize is NewLineReader with a buffer of at most size bytes.
func NewLineReaderSize(r io.Reader, size int64) *LineReader {
	switch r := r.(type) {
	case interface{ Size() int64 }:
		size = min(size, max(r.Size()+1, 4096))
	case *os.File:
		if info, err := r.Stat(); err == nil && info.Mode().IsRegular() {
			size = min(size, max(info.Size()+1, 4096))
		}
	}
	return &LineReader{r: bufio.NewReaderSize(r, int(size)), max: DefaultMaxLine}
}

// Reset makes lr read r from its start, as a new reader would, keeping its buffers: a caller
// that reads the start of many files (format detection) reuses one reader's memory. The line
// cap goes back to the default.
func (lr *LineReader) Reset(r io.Reader) {
	lr.r.Reset(r)
	*lr = LineReader{r: lr.r, max: DefaultMaxLine, acc: lr.acc[:0]}
}

// SetMaxLine changes the line cap (for tests).
func (lr *LineReader) SetMaxLine(n int) { lr.max = n }

// SetStart tells the reader that its input begins at byte offset off, line number num (used when
// reading a file from the middle, after a marker).
func (lr *LineReader) SetStart(off int64, num int) { lr.off, lr.num = off, num }

var BOM = []byte{0xEF, 0xBB, 0xBF}

// Next returns the next non-blank, terminated line. At the end it returns io.EOF; an unterminated
// last line is then available from Pending.
func (lr *LineReader) Next() (Line, error) {
	for {
		if lr.err != nil {
			return Line{}, lr.err
		}
		start := lr.off
		lr.buf = lr.buf[:0]
		terminated := false
		// The common case, a whole line inside bufio's buffer, is returned without a copy: the
		// slice is valid until the next call, as Line.Bytes says.
		first, err := lr.r.ReadSlice('\n')
		if err == nil {
			lr.buf, terminated = first, true
		} else {
			lr.acc = append(lr.acc[:0], first...) // a long line: gather it in our own buffer
			lr.buf = lr.acc
		}
		for !terminated && err != io.EOF {
			if !errors.Is(err, bufio.ErrBufferFull) {
				lr.err = err
				return Line{}, err
			}
			var chunk []byte
			chunk, err = lr.r.ReadSlice('\n')
			lr.acc = append(lr.acc, chunk...)
			lr.buf = lr.acc
			if len(lr.buf) > lr.max+2 {
				lr.err = &LineTooLongError{Line: lr.num + 1, Max: lr.max}
				return Line{}, lr.err
			}
			if err == nil {
				terminated = true
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF {
				break
			}
			lr.err = err
			return Line{}, err
		}
		size := len(lr.buf)
		lr.off += int64(size)
		if size == 0 {
			lr.err = io.EOF
			return Line{}, io.EOF
		}
		lr.num++
		b := lr.buf
		if start == 0 && bytes.HasPrefix(b, BOM) {
			b = b[len(BOM):]
		}
		if !terminated {
			lr.pending = append(lr.pending[:0], b...)
			lr.pendOff = start
			lr.err = io.EOF
			if len(bytes.TrimSpace(lr.pending)) == 0 {
				lr.pending = lr.pending[:0]
			}
			return Line{}, io.EOF
		}
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		if IsBlank(b) {
			continue
		}
		return Line{Num: lr.num, Offset: start, Size: size, Bytes: b}, nil
	}
}

// Pending returns the unterminated last line, if any (after Next returned io.EOF).
func (lr *LineReader) Pending() (Line, bool) {
	if len(lr.pending) == 0 {
		return Line{}, false
	}
	return Line{Num: lr.num, Offset: lr.pendOff, Size: len(lr.pending), Bytes: lr.pending}, true
}

// Offset is the number of bytes consumed so far (including any pending line).
func (lr *LineReader) Offset() int64 { return lr.off }

func IsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ctxc/ctxc/internal/bigbuf"
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
	r   *bufio.Reader
	max int
	num int
	off int64
	buf []byte // the current line: in bufio's buffer, or acc, or long
	acc []byte // gathers lines longer than bufio's buffer
	// With OwnLongLines, a line longer than bufio's buffer is gathered in long instead of acc:
	// memory of its own, which the next call to Next frees unless the caller took it (Take).
	own     bool
	long    *bigbuf.Buf
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
	lr.Free()
	lr.r.Reset(r)
	*lr = LineReader{r: lr.r, max: DefaultMaxLine, acc: lr.acc[:0]}
}

// SetMaxLine changes the line cap (for tests).
func (lr *LineReader) SetMaxLine(n int) { lr.max = n }

// OwnLongLines makes lr gather each line longer than its buffer into memory of its own
// (bigbuf), read once and never copied as it grows: a line of 100 MB costs its size, where
// gathering it into acc, a slice grown by append, copied it at each step and left the old
// arrays to the collector, several times its size in all. The memory is freed by the next call
// to Next or by Free, unless the caller took it (Take) to keep the line longer without a copy.
func (lr *LineReader) OwnLongLines() { lr.own = true }

// Take hands the memory the current line (or the pending last line) was gathered in over to
// the caller, who frees it with release once done with the line's bytes; the reader gathers its
// next long line anew. ok is false when the line lies in the reader's own buffer (valid until
// the next call to Next): only a long line read with OwnLongLines is taken.
func (lr *LineReader) Take() (release func(), ok bool) {
	if lr.long == nil {
		return nil, false
	}
	b := lr.long
	lr.long = nil
	return b.Free, true
}

// Free frees the memory of the current long line, unless it was taken: its bytes, and the
// pending line's when it was long, must not be used after. Once a reader with OwnLongLines is
// done, Free gives back what its last line held.
func (lr *LineReader) Free() {
	if lr.long != nil {
		lr.long.Free()
		lr.long = nil
	}
}

// gather adds a piece of a line that bufio's buffer does not hold whole to the line's own
// memory (first: its first piece): acc, or, with OwnLongLines, a bigbuf.Buf for a line longer
// than the buffer (an unterminated last line that the buffer holds stays in acc).
func (lr *LineReader) gather(p []byte, first bool, err error) {
	if first && lr.own && errors.Is(err, bufio.ErrBufferFull) {
		lr.long = new(bigbuf.Buf)
	}
	if lr.long == nil {
		if first {
			lr.acc = lr.acc[:0]
		}
		lr.acc = append(lr.acc, p...)
		lr.buf = lr.acc
		return
	}
	lr.long.Append(p)
	lr.buf = lr.long.Bytes()
}

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
		lr.Free()
		start := lr.off
		lr.buf = nil
		terminated := false
		// The common case, a whole line inside bufio's buffer, is returned without a copy: the
		// slice is valid until the next call, as Line.Bytes says.
		first, err := lr.r.ReadSlice('\n')
		if err == nil {
			lr.buf, terminated = first, true
		} else {
			lr.gather(first, true, err) // a long line: gather it in our own memory
		}
		for !terminated && err != io.EOF {
			if !errors.Is(err, bufio.ErrBufferFull) {
				lr.err = err
				return Line{}, err
			}
			var chunk []byte
			chunk, err = lr.r.ReadSlice('\n')
			lr.gather(chunk, false, err)
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
			if lr.long != nil {
				lr.pending = b // in the line's own memory, kept until Free (or taken)
			} else {
				lr.pending = append(lr.pending[:0], b...)
			}
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

// SliceReader reads the lines of a byte slice as a LineReader reads them from a stream, in
// place: a line is the slice's own bytes, whatever its length, never gathered into a buffer
// (a line of 100 MB of a mapped file is read where it is). bufSize is the buffer of the
// LineReader it stands for, which checks the line cap only on a line its buffer cannot hold:
// SliceReader does the same, so both give the same lines and the same errors.
type SliceReader struct {
	data    []byte
	bufSize int
	max     int
	num     int
	off     int
	pending Line
	err     error
}

// NewSliceReader returns a reader of the lines of data with the default line cap.
func NewSliceReader(data []byte, bufSize int) *SliceReader {
	return &SliceReader{data: data, bufSize: bufSize, max: DefaultMaxLine}
}

// SetMaxLine changes the line cap (for tests).
func (sr *SliceReader) SetMaxLine(n int) { sr.max = n }

// Next returns the next non-blank, terminated line, as LineReader.Next does. Its Bytes are
// the slice's, valid as long as the slice is.
func (sr *SliceReader) Next() (Line, error) {
	for sr.err == nil {
		start := sr.off
		rest := sr.data[start:]
		n, terminated := len(rest), false
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			n, terminated = k+1, true
		}
		if sr.overCap(n, terminated) {
			sr.err = &LineTooLongError{Line: sr.num + 1, Max: sr.max}
			break
		}
		if n == 0 {
			sr.err = io.EOF
			break
		}
		sr.off += n
		sr.num++
		b := rest[:n]
		if start == 0 && bytes.HasPrefix(b, BOM) {
			b = b[len(BOM):]
		}
		if !terminated {
			if len(bytes.TrimSpace(b)) > 0 {
				sr.pending = Line{Num: sr.num, Offset: int64(start), Size: len(b), Bytes: b}
			}
			sr.err = io.EOF
			break
		}
		b = b[:len(b)-1]
		if k := len(b); k > 0 && b[k-1] == '\r' {
			b = b[:k-1]
		}
		if !IsBlank(b) {
			return Line{Num: sr.num, Offset: int64(start), Size: n, Bytes: b}, nil
		}
	}
	return Line{}, sr.err
}

// overCap tells whether a line of n bytes (its newline included when terminated) is refused:
// LineReader gathers a line its buffer cannot hold (bufio fills the buffer before it sees
// the end of an unterminated one) and refuses it when it is over the cap.
func (sr *SliceReader) overCap(n int, terminated bool) bool {
	long := n > sr.bufSize
	if !terminated {
		long = n >= sr.bufSize
	}
	return long && n > sr.max+2
}

// Pending returns the unterminated last line, if any (after Next returned io.EOF).
func (sr *SliceReader) Pending() (Line, bool) { return sr.pending, sr.pending.Bytes != nil }

// Offset is the number of bytes consumed so far (including any pending line).
func (sr *SliceReader) Offset() int64 { return int64(sr.off) }

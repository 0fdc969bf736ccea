package usage

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// scanBlock is how much of a session is read at once. Lines longer than a block grow it, up to
// longLine.
const scanBlock = 1 << 20

// longLine is the length past which a line is skipped unread, never held: usage is recorded on
// the lines of a model's response (its output, bounded by the model's output limit, a few MB at
// the most) or on small events, and a line this long is a tool's output (a 100 MB tool result):
// holding it would cost its size again beside the scan's own reading of the file. A variable for
// the tests.
var longLine = 16 << 20

var blocks = sync.Pool{New: func() any { b := make([]byte, scanBlock); return &b }}

// scanLines reads a session in blocks and calls head with each of its first describeLines lines,
// then line with each later or earlier line that holds one of want, numbered as jsonl's reader
// numbers them (physical lines from 1). Lines that hold none of want are only counted: most of a
// session's bytes are tool output that records no usage, and skipping them block by block is
// several times cheaper than splitting them into lines. The bytes given are valid during the
// call only, without the line's CR LF (and the file's BOM); an unterminated last line, which an
// agent may still be writing, is not given, as jsonl's reader holds it back.
func scanLines(r io.Reader, want [][]byte, head, line func(num int, b []byte)) error {
	bp := blocks.Get().(*[]byte)
	defer blocks.Put(bp)
	buf := (*bp)[:cap(*bp)]
	carry, num, first := 0, 0, true
	for {
		n, err := io.ReadFull(r, buf[carry:])
		data := buf[:carry+n]
		end := bytes.LastIndexByte(data, '\n') + 1 // the complete lines
		if first && bytes.HasPrefix(data, jsonl.BOM) {
			data, end = data[len(jsonl.BOM):], max(end-len(jsonl.BOM), 0)
		}
		first = false
		num = lines(data[:end], num, want, head, line)
		rest := copy(buf, data[end:])
		switch {
		case len(want) == 0 && num >= describeLines:
			return nil // the format records no usage: its first lines are all it needs
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return err
		}
		if rest == len(buf) && len(buf) >= longLine { // a tool's output: skip it, counted
			var ended bool
			if rest, ended, err = skipLine(r, buf); err != nil || ended {
				return err // ended inside the line: an unterminated last line is not given
			}
			num++
		} else if rest == len(buf) { // one line fills the block: make room
			grown := make([]byte, 2*len(buf))
			copy(grown, buf)
			buf, *bp = grown, grown
		}
		carry = rest
	}
}

// skipLine reads on through the rest of a line that fills buf, in buf, until its end, and moves
// what follows the end to the start of buf: it returns how many bytes that is, or ended when the
// input ends before the line does.
func skipLine(r io.Reader, buf []byte) (rest int, ended bool, err error) {
	for {
		n, err := io.ReadFull(r, buf)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return copy(buf, buf[i+1:n]), false, nil
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return 0, true, nil
		case err != nil:
			return 0, false, err
		}
	}
}

// lines handles the complete lines of a block whose first line is line num+1 and returns the
// number of the last.
func lines(data []byte, num int, want [][]byte, head, line func(int, []byte)) int {
	pos := 0
	for num < describeLines && pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		num++
		head(num, trimCR(data[pos:pos+nl]))
		if matches(data[pos:pos+nl], want) {
			line(num, trimCR(data[pos:pos+nl]))
		}
		pos += nl + 1
	}
	for pos < len(data) && len(want) > 0 {
		m := next(data[pos:], want)
		if m < 0 {
			break
		}
		start := pos + bytes.LastIndexByte(data[pos:pos+m], '\n') + 1
		num += bytes.Count(data[pos:start], nl) + 1
		stop := pos + m + bytes.IndexByte(data[pos+m:], '\n')
		line(num, trimCR(data[start:stop]))
		pos = stop + 1
	}
	return num + bytes.Count(data[pos:], nl)
}

var nl = []byte{'\n'}

// next is where the first of the patterns is in b (-1: none).
func next(b []byte, want [][]byte) int {
	first := -1
	for _, p := range want {
		lim := b
		if first >= 0 {
			lim = b[:first]
		}
		if i := bytes.Index(lim, p); i >= 0 {
			first = i
		}
	}
	return first
}

func matches(b []byte, want [][]byte) bool {
	for _, p := range want {
		if bytes.Contains(b, p) {
			return true
		}
	}
	return false
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

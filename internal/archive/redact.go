package archive

import (
	"bufio"
	"io"

	"github.com/ctxc/ctxc/internal/redact"
)

// redactingReader gives the lines of a session with the secrets inside their JSON string values
// replaced (redact.JSONLine), each line's end as it was.
type redactingReader struct {
	r        *bufio.Reader
	buf      []byte // what is left of the current line, redacted
	line     []byte // the current line's buffer, reused
	err      error
	redacted int // secrets replaced so far
}

func newRedactingReader(r io.Reader) *redactingReader {
	return &redactingReader{r: bufio.NewReaderSize(r, 1<<20)}
}

func (rr *redactingReader) Read(p []byte) (int, error) {
	for len(rr.buf) == 0 {
		if rr.err != nil {
			return 0, rr.err
		}
		rr.next()
	}
	n := copy(p, rr.buf)
	rr.buf = rr.buf[n:]
	return n, nil
}

// next reads and redacts one line.
func (rr *redactingReader) next() {
	line, err := rr.r.ReadBytes('\n')
	rr.err = err
	body, end := splitLineEnd(line)
	out, n := redact.JSONLine(body)
	rr.redacted += n
	rr.line = append(append(rr.line[:0], out...), end...)
	rr.buf = rr.line
}

// splitLineEnd splits a line from its terminator (LF or CRLF, or none at the end).
func splitLineEnd(line []byte) (body, end []byte) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return line[:n], line[n:]
}

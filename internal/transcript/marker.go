package transcript

import (
	"bytes"
	"io"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

type parsedMarker struct {
	summary   string
	head      []Message
	tailLines int
	meta      gjson.Result
}

// parseMarkerDoc reads a marker line. ok is false when the line is not a usable marker (compact
// is not a string, or head is not an array of messages): such a line is ignored and the previous
// marker counts. Crabtalk's bare {"compact":"..."} has no head and is read the same way.
func parseMarkerDoc(doc gjson.Result, text textMode) (parsedMarker, bool) {
	c := doc.Get("compact")
	if c.Type != gjson.String {
		return parsedMarker{}, false
	}
	pm := parsedMarker{summary: c.String(), meta: doc.Get("ctxc")}
	if h := doc.Get("head"); h.Exists() {
		if !h.IsArray() && h.Type != gjson.Null {
			return parsedMarker{}, false
		}
		bad := false
		h.ForEach(func(_, v gjson.Result) bool {
			msg, ok := messageOf(v)
			if !ok {
				bad = true
				return false
			}
			d, _ := messageDialect(msg)
			m := parseDialect(msg, d, text)
			if text.On() {
				m.Raw = []byte(msg.Raw)
			}
			pm.head = append(pm.head, m)
			return true
		})
		if bad {
			return parsedMarker{}, false
		}
	}
	pm.tailLines = int(pm.meta.Get("tail_lines").Int())
	return pm, true
}

// markerProbe is the byte string every marker line contains. Lines are confirmed by parsing;
// this only picks candidates while reading backwards.
var markerProbe = []byte(`"compact"`)

// FindLastMarker reads r backwards from size and returns the byte offset and content of the last
// line that is a valid marker, or -1. Its cost is proportional to what follows the marker, not
// to the history before it, and to the length of a long line, not to its square: a line is read
// back whole only when it holds markerProbe.
func FindLastMarker(r io.ReaderAt, size int64) (off int64, line []byte, err error) {
	return findLastMarker(r, size, 1<<20)
}

// findLastMarker is FindLastMarker reading chunk bytes at a time.
func findLastMarker(r io.ReaderAt, size int64, chunk int64) (off int64, line []byte, err error) {
	return findLastLine(r, size, chunk, markerProbe, markerAt)
}

// findLastLine reads r backwards from size, chunk bytes at a time, and returns the offset and
// content of the last line that holds probe and that at confirms (at returns -1 for a line it
// does not take), or -1. An unterminated last line is never taken.
func findLastLine(r io.ReaderAt, size, chunk int64, probe []byte, at func(r io.ReaderAt, start, end int64) (int64, []byte, error)) (off int64, line []byte, err error) {
	// An unterminated last line is still being written: it is not a marker yet.
	skipPending := false
	if size > 0 {
		last := make([]byte, 1)
		if _, err := r.ReadAt(last, size-1); err != nil && err != io.EOF {
			return -1, nil, err
		}
		skipPending = last[0] != '\n'
	}
	buf := make([]byte, chunk)
	cur := backLine{end: size, want: probe}
	for end := size; end > 0; {
		start := max(end-chunk, 0)
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return -1, nil, err
		}
		// Walk the lines of b from its end; b[:pos] is not yet walked.
		for pos := len(b); ; {
			nl := bytes.LastIndexByte(b[:pos], '\n')
			cur.prepend(b[nl+1 : pos])
			if nl < 0 && start > 0 {
				break // the line goes on in the chunk before
			}
			lineStart := start + int64(nl) + 1
			if skipPending {
				skipPending = false
			} else if cur.probe {
				off, l, err := at(r, lineStart, cur.end)
				if err != nil || off >= 0 {
					return off, l, err
				}
			}
			if nl < 0 {
				break
			}
			cur = backLine{end: start + int64(nl), want: probe}
			pos = nl
		}
		end = start
	}
	return -1, nil, nil
}

// backLine is the line findLastLine is walking back over: where it ends (its terminator
// excluded), whether the part read so far holds the probe it wants, and that part's first bytes
// (a probe may straddle two chunks).
type backLine struct {
	end   int64
	want  []byte
	probe bool
	head  []byte // at most len(want)-1 bytes
}

// prepend takes the part of the line that comes before what was read of it.
func (l *backLine) prepend(part []byte) {
	k := len(l.want) - 1
	if !l.probe {
		edge := part[max(len(part)-k, 0):]
		l.probe = bytes.Contains(part, l.want) || bytes.Contains(append(append([]byte(nil), edge...), l.head...), l.want)
	}
	if len(part) >= k {
		l.head = append(l.head[:0], part[:k]...)
	} else {
		l.head = append(append([]byte(nil), part...), l.head...)
		l.head = l.head[:min(len(l.head), k)]
	}
}

// markerAt reads the line [start, end) and returns it when it is a valid marker (else -1).
func markerAt(r io.ReaderAt, start, end int64) (int64, []byte, error) {
	l, err := jsonLineAt(r, start, end)
	if err != nil || l == nil {
		return -1, nil, err
	}
	if _, ok := parseMarkerDoc(gjson.ParseBytes(l), conv.NoText); ok {
		return start, l, nil
	}
	return -1, nil, nil
}

// jsonLineAt reads the line [start, end) of r without its line end (and the file's BOM): nil
// when it is not valid JSON.
func jsonLineAt(r io.ReaderAt, start, end int64) ([]byte, error) {
	ln := make([]byte, end-start)
	if _, err := r.ReadAt(ln, start); err != nil && err != io.EOF {
		return nil, err
	}
	l := conv.TrimLine(ln)
	if start == 0 {
		l = conv.TrimBOM(l)
	}
	if !jsonl.Valid(l) {
		return nil, nil
	}
	return l, nil
}

package conv

import (
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Ref points at a line that contributes to the effective context. Lines are re-read by offset
// when the context is materialized, so only this much is kept per line while scanning.
type Ref struct {
	Off    int64
	Size   int32
	Line   int32
	Tokens int32
	Msgs   int32
	Sel    uint8 // reader-specific: which part of the line to take
}

// Reader is implemented once per format. Add sees every valid JSON line in order; the reader
// updates the file statistics and keeps what it needs to compute the effective context; Finish
// returns the references in context order; Materialize turns one referenced line into messages
// with their text.
type Reader interface {
	Add(l *Line, doc gjson.Result, st *Stats)
	Finish(st *Stats) []Ref
	Materialize(b []byte, r Ref) ([]Message, error)
}

// Line is a line as the format readers take it: the line and, when a worker already walked
// it (a range reader or the pipeline's validators), what that walk found.
type Line struct {
	jsonl.Line
	// Pre is what a worker's walk found of the line, for the readers of internal/transcript that
	// prepared it, and, through Walk, an agent's reader (nil: nothing; a reader parses the line
	// itself).
	Pre any
	// Release, when set, frees the memory the line's bytes were read into, a long line's own
	// (jsonl.LineReader.Take): once the line is read, unless the scanner holds it (hold).
	Release func()
}

// Walk is an agent's own walk of the line, when a worker made it ahead of the reader (Pre
// holds it): of the type that agent's package gives its walks, which only its reader reads.
// nil: none, the reader walks the line itself.
func (l *Line) Walk() any {
	if w, ok := l.Pre.(interface{ AgentWalk() any }); ok {
		return w.AgentWalk()
	}
	return nil
}

// Free frees the line's own memory, if it has any and nothing took it.
func (l *Line) Free() {
	if l.Release != nil {
		l.Release()
		l.Release = nil
	}
}

func TrimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func TrimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// UnsafeString views b as a string without copying; the caller must not let the string outlive
// or observe changes to b.
func UnsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (r Ref) LineNum() int { return int(r.Line) }

// BytesOffset is where l.Bytes starts in the file: after a byte order mark on the first line.
func (l *Line) BytesOffset() int64 {
	if extra := l.Size - len(l.Bytes); l.Offset == 0 && (extra == len(jsonl.BOM)+1 || extra == len(jsonl.BOM)+2) {
		return int64(len(jsonl.BOM))
	}
	return l.Offset
}

// RefOf is the ref of line l, whose messages are ms (read without their text): the reader
// keeps it to read the line back (Reader.Materialize) when the line is in the context.
func RefOf(l *Line, ms []Message) Ref {
	tokens := 0
	for i := range ms {
		tokens += ms[i].Tokens()
	}
	return Ref{Off: l.Offset, Size: int32(l.Size), Line: int32(l.Num), Tokens: int32(tokens), Msgs: int32(len(ms))}
}

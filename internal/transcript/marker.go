package transcript

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// MarkerMeta is the "ctxc" object of a marker line (docs/design.md §6): where the summary came from
// and how it was made.
type MarkerMeta struct {
	V            int          `json:"v"`
	Created      string       `json:"created"`
	Provider     string       `json:"provider"`
	Model        string       `json:"model,omitempty"`
	Prompt       string       `json:"prompt"`
	Source       MarkerSource `json:"source"`
	TokensBefore int          `json:"tokens_before"`
	TokensAfter  int          `json:"tokens_after"`
	Estimator    string       `json:"estimator"`
	Fallback     string       `json:"fallback"`
	Chunks       int          `json:"chunks"`
	// TailLines is how many lines right after the marker are verbatim copies of the protected
	// tail appended to the same file, so that statistics do not count them twice as history
	// (0 in a file written with -o, where those lines are the file's own).
	TailLines int  `json:"tail_lines"`
	Redacted  bool `json:"redacted,omitempty"`
	// Format and file of the source when the marker was written by compact -o from another file.
	SourceFormat string `json:"source_format,omitempty"`
	// Tier of the compaction (normal, aggressive, emergency) and, for an emergency one, the
	// blocks it cut in the kept messages (the whole texts stay at the lines named).
	Tier string `json:"tier,omitempty"`
	Cuts []Cut  `json:"cuts,omitempty"`
	// Ledger is the audit of the summary against the fact ledger of the summarized messages
	// (package ledger): facts found, present in the summary as written, carried verbatim by the
	// audit, dropped for space.
	Ledger *LedgerCounts `json:"ledger,omitempty"`
}

// LedgerCounts are the counts of a summary's audit.
type LedgerCounts struct {
	Facts   int `json:"facts"`
	Present int `json:"present"`
	Carried int `json:"carried"`
	Dropped int `json:"dropped"`
}

// MarkerSource identifies the summarized lines.
type MarkerSource struct {
	FromLine int    `json:"from_line"`
	ToLine   int    `json:"to_line"`
	SHA256   string `json:"sha256"`
	// Path is the file the lines are in, when it is not the file of the marker (a file that
	// compact -o wrote from another): expand reads the span there.
	Path string `json:"path,omitempty"`
}

// Marker is a ctxc (or crabtalk) compaction marker line.
type Marker struct {
	Compact string            `json:"compact"`
	Head    []json.RawMessage `json:"head"`
	Ctxc    *MarkerMeta       `json:"ctxc,omitempty"`
}

// Encode renders the marker as one JSON line (with its newline), without HTML escaping.
func (m *Marker) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type parsedMarker struct {
	summary   string
	head      []Message
	tailLines int
	meta      gjson.Result
}

// parseMarkerDoc reads a marker line. ok is false when the line is not a usable marker (compact
// is not a string, or head is not an array of messages): such a line is ignored and the previous
// marker counts. Crabtalk's bare {"compact":"..."} has no head and is read the same way.
func parseMarkerDoc(doc gjson.Result, text TextMode) (parsedMarker, bool) {
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
	if _, ok := parseMarkerDoc(gjson.ParseBytes(l), NoText); ok {
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
	l := trimLine(ln)
	if start == 0 {
		l = trimBOM(l)
	}
	if !jsonl.Valid(l) {
		return nil, nil
	}
	return l, nil
}

// Cut is one block an emergency compaction shortened.
type Cut struct {
	Line        int    `json:"line"` // file line of the message that holds the whole text
	Kind        string `json:"kind"` // tool_result or tool_call
	ID          string `json:"id,omitempty"`
	CharsBefore int    `json:"chars_before"`
	CharsAfter  int    `json:"chars_after"`
	Msg, Block  int    `json:"-"` // where the block is in the context (not recorded)
}

package conv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Compaction is what a compaction writes: a summary between the kept head and tail of a
// context. Each format's Writer renders it in that format's own records (docs/design.md §6).
type Compaction struct {
	Summary    string
	Head, Tail []Message // with their whole text (Materialize)
	Middle     []Message // what was summarized (pi carries a summarized head on from it)
	Meta       MarkerMeta
	Now        time.Time
	// Output is the new file's path (-o), "" when there is none or it is standard output.
	Output string
}

// Written is what a Writer rendered.
type Written struct {
	Data []byte
	// Messages is how many messages the written context reloads to (head + summary + tail as
	// the format's reader gives them), for the check after writing.
	Messages int
	// Session is the id an agent resumes a new native file by ("" for ctxc files).
	Session string
	// Resume says how to resume a new native file in its agent.
	Resume string
	// Folder, when set, is a new folder the file goes into (a Cline session): created, it must
	// not exist, with Files written into it before the file.
	Folder string
	Files  []BesideFile
}

// BesideFile is a file written beside a new file.
type BesideFile struct {
	Path string
	Data []byte
}

// Writer renders a compaction for one format, beside that format's reader and reload rule:
// Append for the compacted file itself (one O_APPEND write), New for a new file (-o).
type Writer interface {
	Append(src *Source, c *Compaction, late [][]byte) (Written, error)
	New(src *Source, c *Compaction) (Written, error)
}

// Source reads records of the file being compacted back by line number, for writers that copy
// them.
type Source struct {
	Path string
	file SourceFile
	f    io.ReaderAt // the session's text (an archived session's, decompressed)
	n    int64       // the text's size when it is held in memory
	at   map[int32]Ref
}

// SourceFile is the opened file a Source reads: Plain is the file itself when it is a plain
// file (its size may grow while the agent writes), nil for an archived session.
type SourceFile interface {
	Close() error
	Plain() *os.File
}

// NewSource is a Source over the text f of file (n its size when held in memory) whose context
// is refs: Line reads back the lines those refs point at.
func NewSource(path string, file SourceFile, f io.ReaderAt, n int64, refs []Ref) *Source {
	s := &Source{Path: path, file: file, f: f, n: n, at: make(map[int32]Ref, len(refs))}
	for _, r := range refs {
		if r.Size > 0 {
			s.at[r.Line] = r
		}
	}
	return s
}

// ReaderAt is the session's text (an archived session's, decompressed).
func (s *Source) ReaderAt() io.ReaderAt { return s.f }

// NewObject is an empty object.
func NewObject() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// Close closes the file.
func (s *Source) Close() error { return s.file.Close() }

// Line returns line n of the file (without its line end); it must be a line of the context.
func (s *Source) Line(n int32) ([]byte, error) {
	r, ok := s.at[n]
	if !ok {
		return nil, fmt.Errorf("%s:%d: not a line of the context", s.Path, n)
	}
	buf := make([]byte, r.Size)
	if _, err := s.f.ReadAt(buf, r.Off); err != nil && !(errors.Is(err, io.EOF)) {
		return nil, fmt.Errorf("%s:%d: %w", s.Path, n, err)
	}
	b := TrimLine(buf)
	if r.Off == 0 {
		b = TrimBOM(b)
	}
	if !jsonl.Valid(b) {
		return nil, fmt.Errorf("%s:%d: the line changed since it was read", s.Path, n)
	}
	return b, nil
}

// LastRecord returns the file's last valid JSON line (an unterminated one too, as the agents
// read it): the agent's newest record (pi's leaf, the record a Claude Code boundary continues
// from). Lines are found backwards, so the cost is that of the lines after the record.
func (s *Source) LastRecord() ([]byte, error) {
	end, err := s.size() // the candidate line is [prevNewline(end)+1, end)
	if err != nil {
		return nil, err
	}
	for end > 0 {
		start, err := s.prevNewline(end)
		if err != nil {
			return nil, err
		}
		if end-start > 1 {
			buf := make([]byte, end-start-1)
			if _, err := s.f.ReadAt(buf, start+1); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if l := bytes.TrimSpace(TrimBOM(buf)); len(l) > 0 && jsonl.Valid(l) {
				return l, nil
			}
		}
		end = start
	}
	return nil, fmt.Errorf("%s: no complete record", s.Path)
}

// size is the source's size now: a plain file's as it stands (the agent may have written since
// the load), an archived session's text as decompressed.
func (s *Source) size() (int64, error) {
	plain := s.file.Plain()
	if plain == nil {
		return s.n, nil
	}
	info, err := plain.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// prevNewline is the offset of the last '\n' before end, or -1.
func (s *Source) prevNewline(end int64) (int64, error) {
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	for end > 0 {
		n := min(int64(chunk), end)
		if _, err := s.f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i), nil
		}
		end -= n
	}
	return -1, nil
}

// Records returns the lines (or Codex items) a message came from, in order; a synthesized
// message yields nil entries, which the writer renders from the message itself.
func (s *Source) Records(m *Message) ([][]byte, error) {
	var out [][]byte
	for _, sr := range m.Sources() {
		switch {
		case sr.Item == SrcSynthesized:
			out = append(out, nil)
		case sr.Item == 0:
			l, err := s.Line(sr.Line)
			if err != nil {
				return nil, err
			}
			out = append(out, l)
		default:
			l, err := s.Line(sr.Line)
			if err != nil {
				return nil, err
			}
			it := gjson.GetBytes(l, "payload.replacement_history."+fmt.Sprint(sr.Item-1))
			if !it.IsObject() {
				return nil, fmt.Errorf("%s:%d: no replacement_history item %d", s.Path, sr.Line, sr.Item)
			}
			out = append(out, []byte(it.Raw))
		}
	}
	return out, nil
}

// ResumeHint is the command that resumes a written session, from the registry: its id
// as it is, or for an agent that resumes a file, the word FILE where the file goes.
func ResumeHint(f Format, id string) string {
	return f.Agent().ResumeCommand(id, "FILE", func(s string) string { return s })
}

// Object is a JSON object decoded for rewriting a few fields of a copied record; the fields'
// order is kept as written, new ones go at the end.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

func ParseObject(b []byte) (*Object, error) {
	i := jsonl.SkipSpace(UnsafeString(b), 0)
	if i >= len(b) || b[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	n := i + jsonl.SkipValue(UnsafeString(b[i:]), 0)
	if n > len(b) || !jsonl.Valid(b[i:n]) {
		// encoding/json says what is wrong, and where
		var v json.RawMessage
		if err := json.Unmarshal(b[i:], &v); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("not a JSON object")
	}
	// One copy of the object, its values slices of it: a record of a 100 MB tool result costs
	// 100 MB, where encoding/json's decoder grew its buffer to read it and copied each value.
	own := bytes.Clone(b[i:n])
	o := &Object{vals: map[string]json.RawMessage{}}
	var err error
	jsonl.Value(UnsafeString(own)).Walk(func(key string, rest jsonl.Value) int {
		v, n := rest.Prefix()
		k := key
		if strings.IndexByte(key, '\\') >= 0 || !utf8.ValidString(key) {
			if uerr := json.Unmarshal([]byte(`"`+key+`"`), &k); uerr != nil && err == nil {
				err = uerr
			}
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		off := len(own) - len(rest)
		o.vals[k] = json.RawMessage(own[off : off+len(v) : off+len(v)])
		return n
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Object) Get(k string) json.RawMessage { return o.vals[k] }

func (o *Object) Clone() *Object {
	c := &Object{keys: append([]string(nil), o.keys...), vals: make(map[string]json.RawMessage, len(o.vals))}
	for k, v := range o.vals {
		c.vals[k] = v
	}
	return c
}

func (o *Object) Str(k string) string {
	var s string
	json.Unmarshal(o.vals[k], &s)
	return s
}

func (o *Object) Set(k string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = Marshal(v); err != nil {
			raw = json.RawMessage("null")
		}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = raw
}

func (o *Object) Del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// encode renders the object on one line (no HTML escaping, no trailing newline).
func (o *Object) Encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonl.Quote(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// FirstRecord returns the file's first line (without its line end and BOM): an agent's session
// header.
func (s *Source) FirstRecord() ([]byte, error) {
	lr := jsonl.NewLineReader(io.NewSectionReader(s.f, 0, 1<<62))
	for {
		l, err := lr.Next()
		if err != nil {
			return nil, fmt.Errorf("%s: no first record: %v", s.Path, err)
		}
		if b := bytes.TrimSpace(TrimBOM(l.Bytes)); len(b) > 0 {
			if !jsonl.Valid(b) {
				return nil, &DataError{Path: s.Path, Line: l.Num, Msg: "invalid JSON"}
			}
			return append([]byte(nil), b...), nil
		}
	}
}

func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// DataError is bad input: a file that is not a transcript, or (with Strict) an invalid line.
type DataError struct {
	Path string
	Line int // 0 when not about one line
	Msg  string
}

func (e *DataError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

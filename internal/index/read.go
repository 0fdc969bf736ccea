package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// fileReader reads one file's lines (all, or those appended since its entry's Done) into a
// builder: the raw bytes for the trigrams, each message as a document.
type fileReader struct {
	b      *builder
	e      *FileEntry
	format transcript.Format
	docs   int
	texts  []string
	// lr is the line reader, reset for each file: its 1 MiB buffer is made once per worker
	// rather than once per file (the reader of an appended part, a LimitReader, does not say
	// its size, so a fresh reader took the whole buffer for a file of a few KB).
	lr *jsonl.LineReader
	// spill, after each line, writes the segment being filled once it is full (updater.spill).
	spill func() error
}

// errSpill wraps the error of writing a segment while reading a file.
var errSpill = errors.New("writing a segment")

func (fr *fileReader) read(path string, from, size int64) error {
	if err := fr.detect(path, from); err != nil {
		return err
	}
	rc, err := openAt(path, from)
	if err != nil {
		return err
	}
	defer rc.Close()
	var r io.Reader = io.LimitReader(rc, size-from)
	if fr.e.Compressed {
		r = rc // the file's size is not the decompressed size: read to its end
	}
	lr := fr.lineReader(r)
	defer lr.Free()
	lr.SetStart(from, fr.e.Lines)
	done, lines := from, fr.e.Lines
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fr.line(l)
		done, lines = l.Offset+int64(l.Size), l.Num
		if fr.spill != nil {
			if err := fr.spill(); err != nil {
				return fmt.Errorf("%w: %w", errSpill, err)
			}
		}
	}
	fr.e.Lines, fr.e.Done = lines, done
	fr.e.Session = fr.format.Agent().SessionID(fr.e.Session, path)
	fr.e.Tail, err = tailHash(path, done)
	return err
}

// lineReader returns fr's line reader, made to read r. A line longer than its buffer is read
// into memory of its own (OwnLongLines), freed at the next line: a worker keeps no memory of
// a file's longest line once past it.
func (fr *fileReader) lineReader(r io.Reader) *jsonl.LineReader {
	if fr.lr == nil {
		fr.lr = jsonl.NewLineReader(r)
	} else {
		fr.lr.Reset(r)
	}
	fr.lr.OwnLongLines()
	return fr.lr
}

// detect sets the format: the entry's for an append, else forced or detected.
func (fr *fileReader) detect(path string, from int64) error {
	if from > 0 && fr.e.Format != "" {
		fr.format = transcript.Format(fr.e.Format)
		return nil
	}
	if fr.format == transcript.FormatUnknown {
		rc, err := openAt(path, 0)
		if err != nil {
			return err
		}
		f, err := transcript.Detect(rc, path, transcript.Options{})
		rc.Close()
		if err != nil {
			return err
		}
		fr.format = f
	}
	if fr.format == transcript.FormatUnknown {
		fr.format = transcript.FormatOpenAI
	}
	fr.e.Format = string(fr.format)
	return nil
}

// line takes in one line: its bytes, its session details, its messages.
func (fr *fileReader) line(l jsonl.Line) {
	line, num, offset := l.Bytes, l.Num, l.Offset
	fr.b.addRaw(l, fr.e.ID)
	if !jsonl.Valid(line) {
		fr.e.Scan = true
		return
	}
	at := lineTime(line)
	rd := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line))) // (describe copies what it keeps)
	fr.describe(rd, at)
	rec, ok := transcript.DecodeRecordTransient(fr.format, line, num)
	if !ok {
		return
	}
	if rec.Compaction {
		fr.b.set.escaped.setCompactions() // (grep then reads a generic file whole)
	}
	for i := range rec.Messages {
		m := &rec.Messages[i]
		fr.texts = messageTexts(m, fr.texts[:0])
		if len(fr.texts) == 0 {
			continue
		}
		fr.b.addDoc(doc{file: fr.e.ID, line: uint64(num), offset: uint64(offset), time: at, role: roleCode(roleOf(m))}, fr.texts)
		fr.docs++
	}
}

// describe fills the session's id, project folder and start from the records that say them
// (d is the line parsed, at its time).
func (fr *fileReader) describe(d gjson.Result, at uint32) {
	if fr.e.Session != "" && fr.e.Project != "" && fr.e.Start != 0 {
		return
	}
	id, cwd := d.Get("sessionId"), d.Get("cwd")
	switch d.Get("type").String() {
	case "session_meta": // Codex
		id, cwd = d.Get("payload.id"), d.Get("payload.cwd")
	case "session", "session_start": // pi, droid
		id = d.Get("id")
	case "session.start": // Copilot CLI
		id, cwd = d.Get("data.sessionId"), d.Get("data.context.cwd")
	}
	if info := d.Get("info"); info.IsObject() { // opencode: a message's info
		id, cwd = info.Get("sessionID"), info.Get("path.cwd")
	}
	if fr.e.Session == "" && id.Type == gjson.String {
		fr.e.Session = strings.Clone(id.String())
	}
	if fr.e.Project == "" && cwd.Type == gjson.String {
		fr.e.Project = strings.Clone(cwd.String())
	}
	if fr.e.Start == 0 {
		fr.e.Start = int64(at)
	}
}

// lineTime is a record's timestamp in unix seconds (0: none): its "timestamp", or the time an
// opencode message was created ("info.time.created"); line is valid JSON. Its members are read
// in one walk that skips their values (a "timestamp" after a message of 100 KB is found without
// parsing the message), and gjson reads only the member found; a line whose keys hold an escape,
// which gjson matches unescaped, is read by gjson whole.
func lineTime(line []byte) uint32 {
	var ts, info jsonl.Value
	sure := true
	line = bytes.TrimSpace(line)
	jsonl.Value(unsafe.String(unsafe.SliceData(line), len(line))).Each(func(k string, v jsonl.Value) bool {
		switch {
		case strings.IndexByte(k, '\\') >= 0:
			sure = false
			return false
		case k == "timestamp" && ts == "":
			ts = v
		case k == "info" && info == "":
			info = v
		}
		return true
	})
	var r gjson.Result
	switch {
	case !sure:
		d := gjson.ParseBytes(line)
		if r = d.Get("timestamp"); !r.Exists() {
			r = d.Get("info.time.created")
		}
	case ts != "":
		r = gjson.Parse(string(ts))
	case info != "":
		r = gjson.Get(string(info), "time.created")
	}
	return timeOf(r)
}

// timeOf is a timestamp's unix seconds: an RFC 3339 string, or a number of seconds or
// milliseconds (0: neither).
func timeOf(ts gjson.Result) uint32 {
	switch ts.Type {
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, ts.String()); err == nil && t.Unix() > 0 {
			return uint32(t.Unix())
		}
	case gjson.Number:
		v := ts.Int()
		if v > 1e11 { // milliseconds
			v /= 1000
		}
		if v > 0 && v < 1<<32 {
			return uint32(v)
		}
	}
	return 0
}

// roleOf names a message's role as grep does: a compaction summary, a message of tool results
// only, or its role.
func roleOf(m *transcript.Message) string {
	if m.Summary {
		return "summary"
	}
	if n := m.ToolResults(); n > 0 && n == len(m.Blocks) {
		return "tool"
	}
	return string(m.Role)
}

// Of a long tool result, search reads its first toolHead and last toolTail bytes: where a
// command's output says what it is and how it ended (the error, the summary line). The middle
// of a 200 KB file dump would be most of the index's work and of its dictionary, and would
// rank the session by the file it read rather than by what was done; grep --index reads every
// byte.
const (
	toolHead = 6 << 10
	toolTail = 2 << 10
)

// messageTexts lists what search reads of a message: text, thinking, tool results (the ends of
// long ones), and a tool call's name and arguments.
func messageTexts(m *transcript.Message, out []string) []string {
	for i := range m.Blocks {
		b := &m.Blocks[i]
		switch b.Kind {
		case transcript.BlockText, transcript.BlockThinking:
			if b.Text != "" {
				out = append(out, b.Text)
			}
		case transcript.BlockToolResult:
			out = appendEnds(out, b.Text)
		case transcript.BlockToolCall:
			out = append(out, b.Name, b.Args)
		}
	}
	return out
}

// compressed reports whether the file at path is an archived session (zstd).
func compressed(path string) bool { return transcript.IsCompressed(path) }

// openAt opens a session file positioned at offset of its (decompressed) bytes: a plain file
// is seeked, a compressed one decompressed from its start and the bytes before offset dropped
// (transcript.OpenFile).
func openAt(path string, offset int64) (io.ReadCloser, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, err
	}
	if plain := f.Plain(); plain != nil {
		if _, err := plain.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	if _, err := io.CopyN(io.Discard, f, offset); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// tailHash is the SHA-256 of the tailBytes before end.
func tailHash(path string, end int64) (string, error) {
	rc, err := openAt(path, max(0, end-tailBytes))
	if err != nil {
		return "", err
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, rc, min(end, tailBytes)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// appendEnds appends text, or its first toolHead and last toolTail bytes when it is longer.
func appendEnds(out []string, text string) []string {
	if len(text) <= toolHead+toolTail {
		if text != "" {
			out = append(out, text)
		}
		return out
	}
	head, tail := toolHead, len(text)-toolTail
	for head > 0 && !utf8.RuneStart(text[head]) {
		head--
	}
	for tail < len(text) && !utf8.RuneStart(text[tail]) {
		tail++
	}
	return append(out, text[:head], text[tail:])
}

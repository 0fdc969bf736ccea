// Package aiderhist reads Aider's chat history, the Markdown file Aider appends to as it runs
// (.aider.chat.history.md in the git root, or --chat-history-file): each "# aider chat started
// at <time>" line begins a session, a "#### " line is what the user typed, a "> " line is
// Aider's own output (its notices, questions and their answers, commands' output), and every
// other line is the model's reply. ctxc reads the file as one transcript of all its sessions,
// exported as JSON lines (Export) for the aider reader of internal/transcript: Aider itself
// restores the whole file, every session, with --restore-chat-history. The file is never
// written (docs/formats.md, Aider).
package aiderhist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SessionPrefix begins the line Aider writes when it starts, each time (InputOutput.__init__).
const SessionPrefix = "# aider chat started at "

// Roles of the messages, as Aider's split_chat_history_markdown names them: "tool" is Aider's own
// output, which it leaves out when it restores the history.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Record is one line of the export: a session's start (Started set) or one message.
type Record struct {
	Type    string `json:"type"` // always "aider"
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Started string `json:"started,omitempty"`
	Session int    `json:"session"` // 1 for the first session; 0 before the file's first start line
	Line    int    `json:"line"`    // the Markdown line the record starts at
}

// RecordType is the type of every record of the export.
const RecordType = "aider"

// Counts are what an export held.
type Counts struct {
	Sessions, User, Assistant, Tool int
}

// splitter is Aider's utils.split_chat_history_markdown, run line by line: at most one message
// is open at a time (a line of another kind closes it), and a line that starts with "# " is
// skipped without closing it (a session's start line, but also a heading in a reply).
type splitter struct {
	role    string
	buf     strings.Builder
	first   int // the Markdown line the open message starts at
	session int
	// emit takes each record, in the order of the lines they start at.
	emit func(Record) error
	// starts are the session starts met while a message is open: they follow it.
	starts []Record
	counts Counts
}

// piece takes one line as Python's splitlines(keepends=True) cuts the text, at Markdown line num.
func (s *splitter) piece(p string, num int) error {
	switch {
	case strings.HasPrefix(p, "# "):
		if strings.HasPrefix(p, SessionPrefix) {
			return s.start(p, num)
		}
		return nil
	case strings.HasPrefix(p, "> "):
		return s.add(RoleTool, p[2:], num)
	case strings.HasPrefix(p, "#### "):
		return s.add(RoleUser, p[5:], num)
	}
	return s.add(RoleAssistant, p, num)
}

// start notes a session's start line.
func (s *splitter) start(p string, num int) error {
	s.session++
	s.counts.Sessions++
	r := Record{Type: RecordType, Started: strings.TrimRightFunc(p[len(SessionPrefix):], unicode.IsSpace),
		Session: s.session, Line: num}
	if s.buf.Len() > 0 {
		s.starts = append(s.starts, r)
		return nil
	}
	return s.emit(r)
}

// add appends a line to the open message of role, closing the open message of another role.
func (s *splitter) add(role, text string, num int) error {
	if s.role != role {
		if err := s.close(); err != nil {
			return err
		}
		s.role, s.first = role, num
	}
	s.buf.WriteString(text)
	return nil
}

// close ends the open message: it is a message when it holds more than white space (Aider's
// append_msg), then the session starts met inside it follow.
func (s *splitter) close() error {
	content := s.buf.String()
	s.buf.Reset()
	role := s.role
	s.role = ""
	if strings.TrimFunc(content, pyspace) != "" {
		switch role {
		case RoleUser:
			s.counts.User++
		case RoleAssistant:
			s.counts.Assistant++
		case RoleTool:
			s.counts.Tool++
		}
		session := s.session - len(s.starts)
		if err := s.emit(Record{Type: RecordType, Role: role, Content: content, Session: session, Line: s.first}); err != nil {
			return err
		}
	}
	for _, r := range s.starts {
		if err := s.emit(r); err != nil {
			return err
		}
	}
	s.starts = s.starts[:0]
	return nil
}

// pyspace is Python's str.isspace, which strip() removes: Unicode's white space and the
// information separators \x1c to \x1f.
func pyspace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

// pyBreaks are the line boundaries of Python's str.splitlines besides \n and \r (which the
// file's reading in text mode already made \n): \v, \f, \x1c, \x1d, \x1e, \x85, \u2028, \u2029.
func pyBreak(r rune) bool {
	switch r {
	case '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pieces cuts one line (ending in \n, or the file's unterminated end) as Python's splitlines
// does, keeping each piece's end.
func pieces(line string, each func(string) error) error {
	start := 0
	for i, r := range line {
		if r != '\n' && pyBreak(r) {
			end := i + utf8.RuneLen(r)
			if err := each(line[start:end]); err != nil {
				return err
			}
			start = end
		}
	}
	if start < len(line) {
		return each(line[start:])
	}
	return nil
}

// ErrNotUTF8 is the error of a history that is not UTF-8: Aider reads it as UTF-8 (its default
// --encoding), and restores nothing from a file it cannot decode.
var ErrNotUTF8 = errors.New("not UTF-8 text (Aider restores nothing from it)")

// Split reads a history and gives emit its records in file order: the session starts and the
// messages, each at the Markdown line it starts at. Lines end at \n, \r\n or \r, as Python
// reads a text file.
func Split(r io.Reader, emit func(Record) error) (Counts, error) {
	s := &splitter{emit: emit}
	br := bufio.NewReaderSize(r, 64<<10)
	num := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if !utf8.Valid(line) {
				return s.counts, fmt.Errorf("line %d: %w", num+1, ErrNotUTF8)
			}
			if perr := physicalLines(line, func(l string) error {
				num++
				return pieces(l, func(p string) error { return s.piece(p, num) })
			}); perr != nil {
				return s.counts, perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return s.counts, err
		}
	}
	// (Aider's own split drops a last run of its output lines; they are kept here, for the
	// history's counts and searches: the context leaves them out anyway.)
	if err := s.close(); err != nil {
		return s.counts, err
	}
	return s.counts, nil
}

// physicalLines cuts what ReadBytes gave (up to a \n) at each \r\n, \r and \n, each line
// ending in \n as Python's universal newlines make it.
func physicalLines(b []byte, each func(string) error) error {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			return each(string(b))
		}
		n := i + 1
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			n++
		}
		if err := each(string(b[:i]) + "\n"); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Export writes a history as JSON lines, one record a line, each on the line of the export that
// has the number of the Markdown line it starts at (blank lines between): the line numbers
// ctxc reports are the Markdown file's. A record whose line is taken (two messages begun on one
// line, cut by a \f) goes on the next free line.
func Export(r io.Reader, w io.Writer) (Counts, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	at := 0
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	counts, err := Split(r, func(rec Record) error {
		buf.Reset()
		if err := enc.Encode(rec); err != nil {
			return err
		}
		for at+1 < rec.Line {
			bw.WriteByte('\n')
			at++
		}
		at++
		_, err := bw.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return counts, err
	}
	return counts, bw.Flush()
}

package memory

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The markers of the section ctxc owns in a memory file. Everything outside them is the user's.
const (
	StartMarker = "<!-- ctxc:memory:start -->"
	EndMarker   = "<!-- ctxc:memory:end -->"
)

const (
	sectionTitle = "## Memory from past sessions"
	sectionIntro = "Kept by `ctxc memory`: what was said and done across sessions, with where (session file:line). ctxc rewrites this section; write your own notes outside it."
	emptyLine    = "Nothing yet."
	timeLayout   = "2006-01-02 15:04"
)

// Markdown renders entries as the section ctxc owns, markers included, ending in a newline.
func Markdown(es []Entry) []byte {
	var b bytes.Buffer
	b.WriteString(StartMarker + "\n" + sectionTitle + "\n\n" + sectionIntro + "\n")
	if len(es) == 0 {
		b.WriteString("\n" + emptyLine + "\n")
	}
	for k := Kind(0); k < numKinds; k++ {
		first := true
		for _, e := range es {
			if e.Kind != k {
				continue
			}
			if first {
				b.WriteString("\n### " + k.Title() + "\n\n")
				first = false
			}
			b.WriteString(entryLine(e) + "\n")
		}
	}
	b.WriteString("\n" + EndMarker + "\n")
	return b.Bytes()
}

// entryLine is one entry: its text, then its figures and sources in a closing "_(...)_".
func entryLine(e Entry) string {
	text := oneLine(e.Text)
	if !e.Kind.statement() {
		text = codeSpan(text)
	}
	if e.Superseded != nil {
		text = "~~" + text + "~~ superseded by “" + oneLine(e.Superseded.Text) + "”"
	}
	return "- " + text + " _(" + meta(e) + ")_"
}

func meta(e Entry) string {
	s := fmt.Sprintf("%d× in %d session", e.Count, e.Sessions)
	if e.Sessions != 1 {
		s += "s"
	}
	if !e.Last.IsZero() {
		s += ", last " + e.Last.UTC().Format(timeLayout)
	}
	var srcs []string
	prev := ""
	for _, src := range e.Sources {
		name := sourceName(src.Path)
		if name == prev {
			srcs = append(srcs, strconv.Itoa(src.Line)) // the same file: its line alone
			continue
		}
		srcs = append(srcs, name+":"+strconv.Itoa(src.Line))
		prev = name
	}
	return s + "; " + strings.Join(srcs, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// codeSpan writes s as Markdown code, with a fence longer than any run of backquotes in it.
func codeSpan(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if len(fence) > 1 || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// uncodeSpan reads back what codeSpan wrote.
func uncodeSpan(s string) string {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	if n == 0 || len(s) < 2*n || s[len(s)-n:] != strings.Repeat("`", n) {
		return s
	}
	inner := s[n : len(s)-n]
	if n > 1 || (strings.HasPrefix(inner, " ") && strings.HasSuffix(inner, " ") && len(inner) > 1) {
		inner = strings.TrimPrefix(strings.TrimSuffix(inner, " "), " ")
	}
	return inner
}

// SectionError is a memory file whose section ctxc cannot read back.
type SectionError struct {
	Line int
	Msg  string
}

func (e *SectionError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// span finds the section in a file: the byte offsets of its start marker's line and of the end
// of its end marker's line (with its line break). ok is false when the file has no section.
func span(data []byte) (start, end int, ok bool, err error) {
	startLine := 0
	off, num := 0, 0
	for off < len(data) {
		num++
		next := bytes.IndexByte(data[off:], '\n')
		lineEnd := len(data)
		if next >= 0 {
			lineEnd = off + next + 1
		}
		line := strings.TrimSpace(string(data[off:lineEnd]))
		switch {
		case line == StartMarker && startLine == 0:
			start, startLine = off, num
		case line == StartMarker:
			return 0, 0, false, &SectionError{Line: num, Msg: "a second " + StartMarker + " before " + EndMarker}
		case line == EndMarker && startLine == 0:
			return 0, 0, false, &SectionError{Line: num, Msg: EndMarker + " without " + StartMarker + " before it"}
		case line == EndMarker:
			return start, lineEnd, true, nil
		}
		off = lineEnd
	}
	if startLine != 0 {
		return 0, 0, false, &SectionError{Line: startLine, Msg: StartMarker + " without " + EndMarker + " after it"}
	}
	return 0, 0, false, nil
}

// Section returns the entries of the section of a memory file (none when it has no section).
func Section(data []byte) ([]Entry, error) {
	start, end, ok, err := span(data)
	if err != nil || !ok {
		return nil, err
	}
	var out []Entry
	kind := Kind(numKinds)
	for _, line := range strings.Split(string(data[start:end]), "\n") {
		line = strings.TrimRight(line, "\r")
		if t, ok := strings.CutPrefix(line, "### "); ok {
			kind = kindOfTitle(strings.TrimSpace(t))
			continue
		}
		if kind >= numKinds || !strings.HasPrefix(line, "- ") {
			continue
		}
		if e, ok := parseEntry(kind, line[2:]); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func kindOfTitle(t string) Kind {
	for k, title := range kindTitles {
		if title == t {
			return Kind(k)
		}
	}
	return numKinds
}

// parseEntry reads back an entry line (without its "- "); a line ctxc did not write that way
// (the user edited it) is skipped.
func parseEntry(k Kind, s string) (Entry, bool) {
	i := strings.LastIndex(s, " _(")
	if i < 0 || !strings.HasSuffix(s, ")_") {
		return Entry{}, false
	}
	e := Entry{Kind: k}
	if !parseMeta(&e, s[i+3:len(s)-2]) {
		return Entry{}, false
	}
	text := s[:i]
	if rest, ok := strings.CutPrefix(text, "~~"); ok {
		j := strings.Index(rest, "~~ superseded by “")
		if j < 0 || !strings.HasSuffix(rest, "”") {
			return Entry{}, false
		}
		e.Superseded = &Superseder{Text: strings.TrimSuffix(rest[j+len("~~ superseded by “"):], "”")}
		text = rest[:j]
	}
	if !k.statement() {
		text = uncodeSpan(text)
	}
	if strings.TrimSpace(text) == "" {
		return Entry{}, false
	}
	e.Text = text
	e.key = entryKey(k, text)
	return e, true
}

// parseMeta reads "N× in S sessions, last T; a.jsonl:1, b.jsonl:2".
func parseMeta(e *Entry, m string) bool {
	figures, srcs, ok := strings.Cut(m, "; ")
	if !ok {
		return false
	}
	figures, last, hasLast := strings.Cut(figures, ", last ")
	if hasLast {
		t, err := time.Parse(timeLayout, last)
		if err != nil {
			return false
		}
		e.Last = t.UTC()
	}
	countText, sessText, ok := strings.Cut(figures, "× in ")
	if !ok {
		return false
	}
	sessText = strings.TrimSuffix(strings.TrimSuffix(sessText, "s"), " session")
	var err1, err2 error
	e.Count, err1 = strconv.Atoi(countText)
	e.Sessions, err2 = strconv.Atoi(sessText)
	if err1 != nil || err2 != nil || e.Count < 1 || e.Sessions < 1 {
		return false
	}
	prev := ""
	for _, src := range strings.Split(srcs, ", ") {
		name, num := prev, src
		if i := strings.LastIndexByte(src, ':'); i >= 0 {
			name, num = src[:i], src[i+1:]
		}
		n, err := strconv.Atoi(num)
		if name == "" || err != nil || n < 0 {
			return false
		}
		e.Sources = append(e.Sources, Source{Path: name, Line: n})
		prev = name
	}
	return len(e.Sources) > 0
}

// Update puts a section into a memory file's bytes: in place of its section, or at its end
// after a blank line when it has none. The bytes outside the section are kept as they are.
func Update(data, section []byte) ([]byte, error) {
	start, end, ok, err := span(data)
	if err != nil {
		return nil, err
	}
	var out []byte
	if ok {
		out = append(out, data[:start]...)
		out = append(out, section...)
		return append(out, data[end:]...), nil
	}
	out = append(out, data...)
	switch {
	case len(out) == 0:
	case out[len(out)-1] != '\n':
		out = append(out, '\n', '\n')
	case !bytes.HasSuffix(out, []byte("\n\n")):
		out = append(out, '\n')
	}
	return append(out, section...), nil
}

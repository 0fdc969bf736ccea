package ledger

import (
	"strings"

	"github.com/ctxc/ctxc/internal/transcript"
)

// toolResult tracks errors: an error result stays unresolved until a later result of the same
// tool succeeds (or the user speaks again).
func (b *builder) toolResult(it *transcript.Item) {
	name := it.Name
	if name == "" {
		name = b.calls[it.Group]
	}
	if !it.IsError {
		kept := b.errs[:0]
		for _, e := range b.errs {
			if e.tool != name {
				kept = append(kept, e)
			}
		}
		b.errs = kept
		return
	}
	if line := errorLine(it.Text); line != "" {
		b.errs = append(b.errs, toolErr{tool: name, text: line, line: b.line})
	}
}

var errorWords = []string{"error", "failed", "failure", "panic", "exception", "fatal", "traceback",
	"denied", "not found", "no such", "cannot", "invalid", "undefined", "refused", "timed out"}

// errorLine is the telling line of an error result: the first line with an error word, else the
// first non-empty line, at most 300 characters.
func errorLine(text string) string {
	first := ""
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		low := strings.ToLower(l)
		for _, w := range errorWords {
			if strings.Contains(low, w) {
				return elide(l, 300)
			}
		}
	}
	return elide(first, 300)
}

// A small shell lexer: words (quotes and backslashes resolved) and operators. It is not a shell,
// only enough of one to see which files a command writes.
type shTok struct {
	op   string // "" for a word
	word string
}

// dquoteEscapes are the bytes a backslash escapes inside double quotes; before any other byte
// the backslash is kept.
const dquoteEscapes = "\"\\$`"

// lexShell splits a script into tokens. Here-document bodies are skipped.
func lexShell(s string) []shTok {
	l := &shLexer{s: s}
	for i := 0; i < len(s); i++ {
		i = l.next(i)
	}
	l.endWord()
	return l.toks
}

// shLexer is the state of lexShell: the tokens so far, the word being read, and the
// here-documents whose bodies start after the current line.
type shLexer struct {
	s         string
	toks      []shTok
	w         strings.Builder
	inWord    bool
	heredocs  []string // delimiters waiting for the end of the line
	wantDelim bool     // the next word is a here-document's delimiter, not an argument
}

// next reads the token part that starts at byte i and returns the index of its last byte.
func (l *shLexer) next(i int) int {
	switch c := l.s[i]; {
	case c == '\\' && i+1 < len(l.s):
		return l.escaped(i)
	case c == '\'':
		return l.singleQuoted(i)
	case c == '"':
		return l.doubleQuoted(i)
	case c == '\n':
		return l.newline(i)
	case c == ' ' || c == '\t' || c == '\r':
		l.endWord()
	case c == '>':
		return l.redirectOut(i)
	case c == '<':
		return l.redirectIn(i)
	case c == '&':
		return l.ampersand(i)
	case c == '|' || c == ';' || c == '(' || c == ')':
		if l.at(i+1, c) { // || ;; and a doubled parenthesis are one separator
			i++
		}
		l.emit(";")
	default:
		l.w.WriteByte(c)
		l.inWord = true
	}
	return i
}

// at reports whether byte i of the script is c.
func (l *shLexer) at(i int, c byte) bool { return i < len(l.s) && l.s[i] == c }

// endWord ends the word being read: a token, or the delimiter of a here-document just opened.
func (l *shLexer) endWord() {
	if !l.inWord {
		return
	}
	if l.wantDelim {
		l.heredocs = append(l.heredocs, l.w.String())
		l.wantDelim = false
	} else {
		l.toks = append(l.toks, shTok{word: l.w.String()})
	}
	l.w.Reset()
	l.inWord = false
}

// emit ends the word being read and adds an operator.
func (l *shLexer) emit(op string) {
	l.endWord()
	l.toks = append(l.toks, shTok{op: op})
}

// escaped reads a backslash and the byte it escapes, which joins the word; an escaped line
// break continues the line and adds nothing.
func (l *shLexer) escaped(i int) int {
	i++
	if l.s[i] != '\n' {
		l.w.WriteByte(l.s[i])
		l.inWord = true
	}
	return i
}

// singleQuoted reads a single-quoted string into the word, verbatim; an unterminated one runs
// to the end of the script.
func (l *shLexer) singleQuoted(i int) int {
	j := strings.IndexByte(l.s[i+1:], '\'')
	if j < 0 {
		j = len(l.s) - i - 1
	}
	l.w.WriteString(l.s[i+1 : i+1+j])
	l.inWord = true
	return i + j + 1
}

// doubleQuoted reads a double-quoted string into the word, resolving the backslashes before
// dquoteEscapes; expansions stay as written.
func (l *shLexer) doubleQuoted(i int) int {
	l.inWord = true
	for i++; i < len(l.s) && l.s[i] != '"'; i++ {
		if l.s[i] == '\\' && i+1 < len(l.s) && strings.IndexByte(dquoteEscapes, l.s[i+1]) >= 0 {
			i++
		}
		l.w.WriteByte(l.s[i])
	}
	return i
}

// newline ends a command, then skips the bodies of the here-documents opened on its line: their
// text is input, not commands.
func (l *shLexer) newline(i int) int {
	l.emit("\n")
	for _, d := range l.heredocs {
		i = skipHeredoc(l.s, i, d)
	}
	l.heredocs = l.heredocs[:0]
	return i
}

// redirectOut reads an output redirection (> >> >|) as the operator ">" before the file
// written. A descriptor number before it (2>) is no argument, and >&2 or 2>&1 duplicates a
// descriptor and names no file.
func (l *shLexer) redirectOut(i int) int {
	if l.inWord && allDigits(l.w.String()) {
		l.w.Reset()
		l.inWord = false
	}
	if l.at(i+1, '&') {
		l.endWord()
		for i += 2; i < len(l.s) && (l.s[i] >= '0' && l.s[i] <= '9' || l.s[i] == '-'); i++ {
		}
		return i - 1
	}
	if l.at(i+1, '>') || l.at(i+1, '|') {
		i++
	}
	l.emit(">")
	return i
}

// redirectIn reads an input redirection: < and the here-string <<< as "<" before the file or
// word read, and a here-document (<< or <<-) as "<<" whose delimiter is the next word.
func (l *shLexer) redirectIn(i int) int {
	switch rest := l.s[i:]; {
	case strings.HasPrefix(rest, "<<<"):
		i += 2
		l.emit("<")
	case strings.HasPrefix(rest, "<<"):
		i++
		if l.at(i+1, '-') {
			i++
		}
		l.emit("<<")
		l.wantDelim = true
	default:
		l.emit("<")
	}
	return i
}

// ampersand reads &> and &>> (both outputs to a file) as ">", and & and && as a separator.
func (l *shLexer) ampersand(i int) int {
	if l.at(i+1, '>') {
		i++
		if l.at(i+1, '>') {
			i++
		}
		l.emit(">")
		return i
	}
	if l.at(i+1, '&') {
		i++
	}
	l.emit(";")
	return i
}

// skipHeredoc returns the index of the newline that ends the here-document starting after the
// newline at i (or the end of s).
func skipHeredoc(s string, i int, delim string) int {
	for j := i + 1; j < len(s); {
		end := strings.IndexByte(s[j:], '\n')
		line := s[j:]
		if end >= 0 {
			line = s[j : j+end]
		}
		if strings.TrimLeft(strings.TrimSpace(line), "\t") == delim {
			if end < 0 {
				return len(s)
			}
			return j + end
		}
		if end < 0 {
			return len(s)
		}
		j += end + 1
	}
	return len(s)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// scriptWrites lists the files a shell script writes, as written in it.
func scriptWrites(script string) []string {
	var out []string
	var argv []string
	add := func(p string) {
		if p == "" || len(p) > 400 || strings.ContainsAny(p, "\n\x00") || strings.HasPrefix(p, "&") || strings.HasPrefix(p, "/dev/") {
			return
		}
		out = append(out, p)
	}
	end := func() {
		out = append(out, commandWrites(argv)...)
		argv = argv[:0]
	}
	toks := lexShell(script)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.op {
		case "":
			argv = append(argv, t.word)
		case ">":
			if i+1 < len(toks) && toks[i+1].op == "" {
				add(toks[i+1].word)
				i++
			}
		case "<":
			if i+1 < len(toks) && toks[i+1].op == "" {
				i++
			}
		case "<<":
		default:
			end()
		}
	}
	end()
	return out
}

// commandWrites lists the files one simple command changes.
func commandWrites(argv []string) []string {
	for len(argv) > 0 && (strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "-") || argv[0] == "sudo" || argv[0] == "command" || argv[0] == "env") {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return nil
	}
	name := base(argv[0])
	args := argv[1:]
	if name == "git" && len(args) > 0 && (args[0] == "mv" || args[0] == "rm") {
		name, args = "git "+args[0], args[1:]
	}
	var opts, plain []string
	for _, a := range args {
		if a == "" {
			continue // never a file (sed -i '' on macOS)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			opts = append(opts, a)
		} else {
			plain = append(plain, a)
		}
	}
	has := func(prefixes ...string) bool {
		for _, o := range opts {
			for _, p := range prefixes {
				if strings.HasPrefix(o, p) {
					return true
				}
			}
		}
		return false
	}
	switch name {
	case "tee", "touch", "rm", "mv", "git mv", "git rm", "truncate":
		if name == "truncate" && len(plain) > 0 && has("-s") {
			plain = plain[1:]
		}
		return plain
	case "cp", "install", "ln":
		if len(plain) >= 2 {
			return plain[len(plain)-1:]
		}
	case "sed", "perl":
		if !has("-i", "--in-place", "-pi", "-ni") {
			return nil
		}
		if has("-e", "-f", "--expression") {
			// the values of -e/-f were taken as plain words: drop the first one per option
			n := 0
			for _, o := range opts {
				if o == "-e" || o == "-f" || o == "--expression" {
					n++
				}
			}
			if n > len(plain) {
				return nil
			}
			return plain[n:]
		}
		if len(plain) > 1 {
			return plain[1:]
		}
	}
	return nil
}

package ledger

import (
	"strings"

	"github.com/ctxc/ctxc/internal/summarize"
)

// toolResult tracks errors: an error result stays unresolved until a later result of the same
// tool succeeds (or the user speaks again).
func (b *builder) toolResult(it *summarize.Item) {
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

// lexShell splits a script into tokens. Here-document bodies are skipped.
func lexShell(s string) []shTok {
	var toks []shTok
	var w strings.Builder
	inWord := false
	var heredocs []string // delimiters waiting for the end of the line
	wantDelim := false
	flush := func() {
		if inWord {
			if wantDelim {
				heredocs = append(heredocs, w.String())
				wantDelim = false
			} else {
				toks = append(toks, shTok{word: w.String()})
			}
			w.Reset()
			inWord = false
		}
	}
	emit := func(op string) {
		flush()
		toks = append(toks, shTok{op: op})
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
				inWord = true
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\n':
			emit("\n")
			for _, d := range heredocs {
				i = skipHeredoc(s, i, d)
			}
			heredocs = heredocs[:0]
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '>':
			if inWord && allDigits(w.String()) { // 2>file
				w.Reset()
				inWord = false
			}
			if i+1 < len(s) && s[i+1] == '&' { // >&2, 2>&1: a descriptor, not a file
				flush()
				for i += 2; i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '-'); i++ {
				}
				i--
				continue
			}
			if i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '|') {
				i++
			}
			emit(">")
		case c == '<':
			if strings.HasPrefix(s[i:], "<<<") {
				i += 2
				emit("<")
			} else if strings.HasPrefix(s[i:], "<<") {
				i++
				if i+1 < len(s) && s[i+1] == '-' {
					i++
				}
				emit("<<")
				wantDelim = true
			} else {
				emit("<")
			}
		case c == '&':
			if i+1 < len(s) && s[i+1] == '>' { // &>file
				i++
				if i+1 < len(s) && s[i+1] == '>' {
					i++
				}
				emit(">")
			} else {
				if i+1 < len(s) && s[i+1] == '&' {
					i++
				}
				emit(";")
			}
		case c == '|' || c == ';' || c == '(' || c == ')':
			if i+1 < len(s) && s[i+1] == c {
				i++
			}
			emit(";")
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return toks
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

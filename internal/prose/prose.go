// Package prose tells the user's own prose from what a user message carries that the user did
// not write: pasted logs and tool output, JSON fragments, stack traces, code blocks, quotes.
// Rules and preferences are taken from the user's own prose only, by the fact ledger (what a
// compaction must keep, what memory remembers) and by the extractive summarizer alike.
package prose

import (
	"regexp"
	"strings"
	"sync"
)

// Blank returns text with every line that is not the user's own prose replaced by spaces
// (line ends kept): offsets into text stay offsets into the result.
func Blank(text string) string {
	own := ownLines(text)
	if own == nil {
		return text
	}
	b := []byte(text)
	for i, ln := range lines(text) {
		if !own[i] {
			for k := ln.from; k < ln.to; k++ {
				if b[k] != '\r' {
					b[k] = ' '
				}
			}
		}
	}
	return string(b)
}

// Own returns the lines of text that are the user's own prose, joined by newlines, with the
// rest left out.
func Own(text string) string {
	own := ownLines(text)
	if own == nil {
		return text
	}
	var out []string
	for i, ln := range lines(text) {
		if own[i] {
			out = append(out, text[ln.from:ln.to])
		}
	}
	return strings.Join(out, "\n")
}

type span struct{ from, to int }

func lines(text string) []span {
	var out []span
	for from := 0; from <= len(text); {
		to := strings.IndexByte(text[from:], '\n')
		if to < 0 {
			out = append(out, span{from, len(text)})
			break
		}
		out = append(out, span{from, from + to})
		from += to + 1
	}
	return out
}

// pasteShare: when at least this share of a text's non-blank lines outside code blocks are not
// prose (and pasteLines or more), the text is a paste of output, whose plain-looking lines ("No
// fixes applied.") are output too: only the lines before its first such line are the user's.
const (
	pasteShare = 3 // one in three
	pasteLines = 2
)

// ownLines says for each line of text whether it is the user's own prose; nil when all are.
func ownLines(text string) []bool {
	ls := lines(text)
	own := make([]bool, len(ls))
	fence, notOwn, pasted, nonBlank, first := "", 0, 0, 0, -1
	for i, ln := range ls {
		l := strings.TrimRight(text[ln.from:ln.to], "\r")
		t := strings.TrimSpace(l)
		if t == "" {
			own[i] = true
			continue
		}
		nonBlank++
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		default:
			own[i] = Line(l)
			if !own[i] {
				pasted++
				if first < 0 {
					first = i
				}
			}
		}
		if !own[i] {
			notOwn++
		}
	}
	if notOwn == 0 {
		return nil
	}
	if pasted >= pasteLines && pasted*pasteShare >= nonBlank {
		for i := first; i < len(own); i++ {
			own[i] = false
		}
	}
	return own
}

// Line says whether one line of a user message reads as the user's own prose: not indented as
// code, not a quote, a shell prompt, a log line, a stack frame, an error report, a diff line or
// a fragment of JSON or code.
func Line(l string) bool {
	if strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "    ") {
		return false // indented: code, a stack frame, a continued log record
	}
	t := strings.TrimSpace(l)
	if t == "" {
		return true
	}
	switch t[0] {
	case '{', '}', '[', ']', '"', '>', '$', '#', '|', '@', '+', '<':
		if !(t[0] == '#' && markdownHeading(t)) && !(t[0] == '[' && markdownLink(t)) {
			return false
		}
	}
	return !notProse().MatchString(t[:min(len(t), notProseHead)]) && !jsonFragment(t) && !syntaxHeavy(t)
}

// notProseHead is how much of a line notProse, whose patterns all start at the line's start,
// reads: a pasted line may be half a megabyte.
const notProseHead = 256

// jsonFragment: a line holding a JSON member (`"key": value`) or closing JSON containers
// (`}]`, `},`), found in one pass.
func jsonFragment(t string) bool {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '"':
			j := skipSpaces(t, i+1)
			if j < len(t) && t[j] == ':' {
				k := skipSpaces(t, j+1)
				if k < len(t) && (strings.IndexByte(`"{[-0123456789`, t[k]) >= 0 ||
					strings.HasPrefix(t[k:], "true") || strings.HasPrefix(t[k:], "false") || strings.HasPrefix(t[k:], "null")) {
					return true
				}
			}
		case '}', ']':
			if i > 0 && wordOrSpace(t[i-1]) {
				continue
			}
			if k := skipSpaces(t, i+1); k < len(t) && strings.IndexByte(",}]", t[k]) >= 0 {
				return true
			}
		}
	}
	return false
}

func skipSpaces(t string, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

func wordOrSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// markdownHeading: "# Title", "## Notes" (a heading the user wrote), not "#!/bin/sh" or "#123".
func markdownHeading(t string) bool {
	n := len(t) - len(strings.TrimLeft(t, "#"))
	return n <= 6 && len(t) > n && t[n] == ' '
}

// markdownLink: "[text](url)" opening a line of prose.
func markdownLink(t string) bool { return strings.Contains(t, "](") }

// syntaxHeavy: a line where the characters of code and JSON ({}[]();="\=<>|) are a fifth or
// more of those that are not spaces or letters.
func syntaxHeavy(t string) bool {
	syn, all := 0, 0
	for _, r := range t {
		switch {
		case r == ' ' || r == '\t':
			continue
		case strings.ContainsRune(`{}[]();="\<>|`, r):
			syn++
		}
		all++
	}
	return all >= 8 && syn*5 >= all
}

var notProse = lazyRegexp(strings.Join([]string{
	`^at \S+.*(?:\(|:\d+)`,                                 // a JavaScript or Java stack frame
	`^File ".*", line \d+`,                                 // a Python stack frame
	`^Traceback \(most recent call last\)`,                 // a Python traceback
	`^goroutine \d+ \[`,                                    // a Go stack dump
	`^panic: `,                                             // a Go panic
	`^(?:[\w$]+\.)*\w*(?:Error|Exception)(?::|$)`,          // "Error: ENOENT", "TypeError: x", "java.io.IOException"
	`^(?:fatal|error|warning)(?:\[\w+\])?: `,               // a compiler's report
	`^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d`,                     // a timestamped log line
	`^\[?\d\d:\d\d:\d\d\b`,                                 // a log line's time
	`^\[?(?i:info|warn|warning|error|debug|trace|fatal)\]`, // a log level in brackets
	`^(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\b`,     // a log level
	`^(?:npm|yarn|pnpm) (?:ERR|WARN)`,                      // npm's reports
	`^[\w./-]+\.\w+:\d+(?::\d+)?(?:[: ]|$)`,                // file:line: a compiler's or linter's message
	`^(?:diff --git|index [0-9a-f]+\.\.|@@ |\+\+\+ |--- )`, // a diff
	`^(?:✓|✗|✔|✘|×|│|├|└|┌|─|═|▶|►)`,                       // test runners' and tools' drawing
}, "|"))

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

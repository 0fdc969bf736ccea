package redact

import (
	"bytes"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// JSONLine returns a JSON line with the secrets inside its string values (and keys) replaced,
// and how many were: each string that holds one is decoded, redacted and written back as a JSON
// string (escaped as encoding/json escapes), every other byte of the line as it was, so the
// line stays valid JSON with the same structure. JSON nested in a string (a tool call's
// arguments) is redacted in the decoded text, its escapes rebuilt. A line that is not valid
// JSON is redacted as text.
func JSONLine(line []byte) ([]byte, int) {
	if !anyHint(line) {
		return line, 0
	}
	if !jsonl.Valid(line) {
		out, n := String(string(line))
		if n == 0 {
			return line, 0
		}
		return []byte(out), n
	}
	var out []byte // nil until a string changes
	last, total := 0, 0
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		end := stringEnd(line, i)
		inner := string(line[i+1 : end])
		text, n := String(jsonl.Unescape(inner))
		if n > 0 {
			out = append(out, line[last:i]...)
			out = jsonl.AppendQuote(out, text)
			last, total = end+1, total+n
		}
		i = end
	}
	if total == 0 {
		return line, 0
	}
	return append(out, line[last:]...), total
}

// stringEnd is the index of the quote that closes the JSON string opened at line[open].
func stringEnd(line []byte, open int) int {
	for j := open + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(line) - 1
}

// anyHint reports whether b holds a hint of any kind: a line without one holds no secret.
func anyHint(b []byte) bool {
	lower := bytes.ToLower(b)
	for _, k := range kinds {
		for _, h := range k.Hints {
			if bytes.Contains(lower, []byte(h)) {
				return true
			}
		}
	}
	return false
}

package jsonl

import (
	"unsafe"

	"github.com/ctxc/ctxc/internal/strscan"
)

// Valid reports whether b is one valid JSON value (surrounded by optional white space): the
// same answer as gjson.ValidBytes, which FuzzValidJSON checks on every input it tries. Two
// reasons to have it: validation is the largest part of `ctxc stats`, and this one skips the
// plain runs of strings eight bytes at a time where gjson looks at every byte; and it keeps its
// own stack of open containers instead of recursing, so a line of a hundred million '[' is an
// invalid line, not a stack overflow that kills the process.
func Valid(b []byte) bool {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	var stack []byte // open containers, '{' or '['
	i := SkipSpace(s, 0)
	for {
		// A value starts at i.
		if i >= len(s) {
			return false
		}
		switch c := s[i]; {
		case c == '{' || c == '[':
			j := SkipSpace(s, i+1)
			if j < len(s) && s[j] == c+2 { // '{'+2 == '}', '['+2 == ']'
				i = j + 1
				break
			}
			stack = append(stack, c)
			i = j
			if c == '{' {
				if i = validKey(s, i); i < 0 {
					return false
				}
			}
			continue
		case c == '"':
			if i = strscan.StringEnd(s, i, nil); i < 0 {
				return false
			}
		case c == 't':
			if !strscan.HasPrefixAt(s, i, "true") {
				return false
			}
			i += 4
		case c == 'f':
			if !strscan.HasPrefixAt(s, i, "false") {
				return false
			}
			i += 5
		case c == 'n':
			if !strscan.HasPrefixAt(s, i, "null") {
				return false
			}
			i += 4
		default:
			if i = strscan.NumberEnd(s, i); i < 0 {
				return false
			}
		}
		// After a value: close containers, or go on after a comma.
		for {
			i = SkipSpace(s, i)
			if len(stack) == 0 {
				return i == len(s)
			}
			if i >= len(s) {
				return false
			}
			top := stack[len(stack)-1]
			if s[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if s[i] != ',' {
				return false
			}
			i = SkipSpace(s, i+1)
			if top == '{' {
				if i = validKey(s, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// validKey checks `"key" :` at i and returns where the value starts, or -1.
func validKey(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	if i = strscan.StringEnd(s, i, nil); i < 0 {
		return -1
	}
	i = SkipSpace(s, i)
	if i >= len(s) || s[i] != ':' {
		return -1
	}
	return SkipSpace(s, i+1)
}

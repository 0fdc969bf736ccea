// Package quote owns how ctxc prints, for people, a text it did not choose: a file's path, an
// error message that holds one. Such a text is printed as it is unless it could be taken for
// something else; JSON output needs none of this (encoding/json escapes).
package quote

import (
	"strconv"
	"unicode/utf8"
)

// Name is s as printed in human output (tables, grep's lines, messages, errors): s itself when
// every character is printable and it does not begin with a double quote, else s in Go syntax
// (strconv.Quote: "a\nb"), so that a crafted file name cannot fake a line of output, move the
// cursor of a terminal or turn its text around. A newline, a tab, an escape, any other control
// or format character (U+202E), invalid UTF-8 make s quoted; a leading " does, so that a name
// printed quoted is never mistaken for one printed as it is.
func Name(s string) string {
	if plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain says whether s is printed as it is (Name).
func plain(s string) bool {
	if s != "" && s[0] == '"' {
		return false
	}
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

package jsonl

import (
	"io"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// Quote returns s as a JSON string (AppendQuote).
func Quote(s string) []byte { return AppendQuote(nil, s) }

// AppendQuote appends s as a JSON string exactly as encoding/json does with HTML escaping
// off: control characters escaped (\n, \r, \t, \b, \f, else \u00XX), invalid UTF-8 replaced by
// \ufffd, U+2028 and U+2029 escaped. Runs that need nothing are copied whole.
func AppendQuote(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = slices.Grow(dst, len(s)+len(s)/16+2) // one allocation: escapes rarely add more
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: none below 0x20, none '"' or '\\', all ASCII.
		for i+8 <= len(s) {
			w := load64(s, i)
			q, b := w^(lsb*'"'), w^(lsb*'\\')
			if m := ((w-lsb*0x20)&^w | (q-lsb)&^q | (b-lsb)&^b | w) & msb; m != 0 {
				i += bits.TrailingZeros64(m) / 8 // the lowest flag is exact
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// WriteQuote writes s as AppendQuote quotes it, in pieces of 64 KiB: a long text (a tool result
// of 100 MB) goes out without a quoted copy of it whole in memory.
func WriteQuote(w io.Writer, s string) error {
	return writeQuote(w, s, 64<<10)
}

// writeQuote is WriteQuote in pieces of about piece bytes. A piece ends before the first byte
// of a UTF-8 sequence (utf8.RuneStart), which no sequence before it can take as its own: each
// piece quotes as it would inside the whole text, invalid bytes included.
func writeQuote(w io.Writer, s string, piece int) error {
	var buf []byte
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	for i := 0; i < len(s); {
		end := min(i+piece, len(s))
		for end > i && end < len(s) && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == i { // a run of continuation bytes as long as a piece: end past it
			for end = min(i+piece, len(s)); end < len(s) && !utf8.RuneStart(s[end]); end++ {
			}
		}
		buf = AppendQuote(buf[:0], s[i:end])
		if _, err := w.Write(buf[1 : len(buf)-1]); err != nil {
			return err
		}
		i = end
	}
	_, err := io.WriteString(w, `"`)
	return err
}

// HexByte is the byte two hex digits spell (the XX of a \u00XX escape); false when either is
// not a hex digit.
func HexByte(hi, lo byte) (byte, bool) {
	h, ok1 := hexVal(hi)
	l, ok2 := hexVal(lo)
	return h<<4 | l, ok1 && ok2
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// AppendValidUTF8 appends the JSON text b with every byte that is not part of a valid UTF-8
// sequence written as \ufffd, as AppendQuote writes it, and says how many bytes it replaced.
// In valid JSON such a byte can only stand inside a string, where the escape means U+FFFD: the
// text stays the same JSON, now valid UTF-8. Every JSON line ctxc writes from bytes it did not
// quote itself (raw messages copied, records carried over) goes through here.
func AppendValidUTF8(dst, b []byte) ([]byte, int) {
	if utf8.Valid(b) {
		return append(dst, b...), 0
	}
	n, start := 0, 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, b[start:i]...)
			dst = append(dst, `\ufffd`...)
			n++
			i++
			start = i
			continue
		}
		i += size
	}
	return append(dst, b[start:]...), n
}

// InvalidUTF8 counts the bytes of s that are not part of a valid UTF-8 sequence: those
// AppendQuote and AppendValidUTF8 write as \ufffd.
func InvalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return 0
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n++
		}
		i += size
	}
	return n
}

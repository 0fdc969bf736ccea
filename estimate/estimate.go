// Package estimate implements ctxc's token estimate (design.md §4): tokens = ceil(chars/4), where
// chars are Unicode code points of the text the model sees. It is a deliberately simple rule shared
// with crabtalk, pi and Codex; recorded provider usage, when a transcript carries it, calibrates it.
package estimate

import "unicode/utf8"

// CharsPerToken is the divisor of the chars/4 rule.
const CharsPerToken = 4

// ImageTokens is the fixed cost of one image block: base64 data is never counted as text.
const ImageTokens = 1600

// Name identifies the estimator in markers and JSON output.
const Name = "chars/4"

// Chars counts the code points of s.
func Chars(s string) int { return utf8.RuneCountInString(s) }

// FromChars converts a character count into tokens: ceil(chars/4).
func FromChars(chars int) int {
	if chars <= 0 {
		return 0
	}
	return (chars + CharsPerToken - 1) / CharsPerToken
}

// Tokens estimates the tokens of one text.
func Tokens(s string) int { return FromChars(Chars(s)) }

// JSONStringChars counts the code points of the decoded value of a JSON string literal, given
// with or without its surrounding quotes, without allocating. Escapes count as the one character
// they stand for; a surrogate pair (\ud83d\ude00) counts as one code point. Invalid UTF-8 bytes
// count one each, as utf8.RuneCount does.
func JSONStringChars(raw string) int {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	n := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw):
			if raw[i+1] == 'u' && i+5 < len(raw) {
				// A high surrogate followed by an escaped low surrogate is one code point.
				if isHighSurrogate(raw[i+2:i+6]) && i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					i += 12
				} else {
					i += 6
				}
			} else {
				i += 2
			}
			n++
		case c < utf8.RuneSelf:
			i++
			n++
		default:
			_, size := utf8.DecodeRuneInString(raw[i:])
			i += size
			n++
		}
	}
	return n
}

func isHighSurrogate(hex string) bool {
	if len(hex) != 4 || (hex[0] != 'd' && hex[0] != 'D') {
		return false
	}
	switch hex[1] {
	case '8', '9', 'a', 'b', 'A', 'B':
		return true
	}
	return false
}

// ASCII-only fast path counts are handled by the loop above; JSONValueChars counts the code points
// of a raw JSON value as it stands in the file (used for tool-call arguments given as objects).
func JSONValueChars(raw string) int { return utf8.RuneCountInString(raw) }

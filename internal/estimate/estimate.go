// Package estimate implements ctxc's token estimate (docs/design.md §4): tokens = ceil(chars/4), where
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

package summarize

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
)

// targetTolerance is how far over its target a summary may run before it is rejected. Models
// are poor at counting tokens; 1.5× still bounds the compacted context.
const targetTolerance = 1.5

// invalidError is a summary that failed validation (the call itself succeeded). It escalates.
type invalidError struct{ reason string }

func (e *invalidError) Error() string { return "summary rejected: " + e.reason }

// errorOpenings are how refusals, apologies and relayed server errors begin. A real summary
// starts with a heading (the prompts say so), so these are safe to reject.
var errorOpenings = []string{
	"error", "i'm sorry", "i’m sorry", "i am sorry", "sorry,", "i cannot", "i can't", "i can’t",
	"i apologize", "i'm unable", "i’m unable", "i am unable", "as an ai", "as a language model",
	"<!doctype", "<html", "internal server error", "bad gateway", "service unavailable",
}

// validate accepts a summary only if it is non-empty, does not look like an error or refusal,
// is shorter than its input, fits targetTolerance × target, and was not cut off by the output
// cap (a cut summary loses its last sections, typically the current state and last request).
func validate(text, doneReason string, inputChars, target int) error {
	t := strings.TrimSpace(text)
	if t == "" {
		return &invalidError{"empty reply"}
	}
	low := strings.ToLower(t)
	for _, p := range errorOpenings {
		if strings.HasPrefix(low, p) {
			return &invalidError{"reply looks like an error or a refusal"}
		}
	}
	if strings.HasPrefix(low, "{") && strings.Contains(low[:min(len(low), 200)], `"error"`) {
		return &invalidError{"reply is an error object"}
	}
	switch doneReason {
	case "length":
		return &invalidError{"reply was cut off at the output limit"}
	case "content_filter":
		return &invalidError{"reply was cut off by a content filter"}
	}
	chars := estimate.Chars(t)
	if chars >= inputChars {
		return &invalidError{fmt.Sprintf("reply (%d chars) is not shorter than its input (%d chars)", chars, inputChars)}
	}
	if tok, limit := estimate.FromChars(chars), int(float64(target)*targetTolerance); tok > limit {
		return &invalidError{fmt.Sprintf("reply is ~%d tokens, over the %d-token limit", tok, limit)}
	}
	return nil
}

// cleanReply removes wrapping some models add around an otherwise good summary: a leading
// <think>…</think> block (reasoning models behind OpenAI-compatible servers put it in the
// content) and a code fence around the whole text.
func cleanReply(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) > 6 {
		if nl := strings.IndexByte(s, '\n'); nl > 0 {
			inner := strings.TrimSpace(s[nl+1 : len(s)-3])
			if !strings.Contains(inner, "```") {
				s = inner
			}
		}
	}
	return s
}

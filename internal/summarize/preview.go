package summarize

import (
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/estimate"
)

// Preview limits, in characters (code points). Tool output is where transcripts are bulky and
// least informative per token: its start (what ran) and end (how it ended, the error) carry the
// meaning. Tool-call arguments (a whole file for a write) and thinking are bounded for the same
// reason. User and assistant text is kept whole unless it exceeds the per-item cap.
const (
	toolResultHead = 1200
	toolResultTail = 600
	toolCallHead   = 800
	toolCallTail   = 300
	thinkingHead   = 800
	thinkingTail   = 400
	// previewSlack avoids eliding a handful of characters: text up to head+tail+slack is kept.
	previewSlack = 200
	// noteGlimpse is how much of an omitted item the note still shows.
	noteGlimpse = 300
)

// rendered is one item as it goes into a transcript block.
type rendered struct {
	index  int    // position in Request.Items
	text   string // "[line N] label: body\n"
	tokens int    // estimate.Tokens(text)
}

// label describes an item's speaker and kind, e.g. "assistant → tool_call Bash".
func label(it transcript.Item) string {
	role := it.Role
	if role == "" {
		role = "unknown"
	}
	switch it.Kind {
	case "", "text":
		return role
	case "thinking":
		return role + " (thinking)"
	case "tool_call":
		if it.Name != "" {
			return role + " → tool_call " + it.Name
		}
		return role + " → tool_call"
	case "tool_result":
		switch {
		case it.Name != "" && it.IsError:
			return "tool result (" + it.Name + ", error)"
		case it.Name != "":
			return "tool result (" + it.Name + ")"
		case it.IsError:
			return "tool result (error)"
		}
		return "tool result"
	case "summary":
		return "earlier ctxc summary"
	}
	return role + " (" + it.Kind + ")"
}

func prefix(it transcript.Item) string {
	if it.Line > 0 {
		return "[line " + strconv.Itoa(it.Line) + "] " + label(it) + ": "
	}
	return label(it) + ": "
}

// previewBody applies the per-kind head+tail preview to an item's text.
func previewBody(it transcript.Item) string {
	if it.Tail != "" {
		return previewEnds(it, toolResultHead, toolResultTail)
	}
	text := strings.TrimSpace(it.Text)
	switch it.Kind {
	case "tool_result":
		return preview(text, toolResultHead, toolResultTail)
	case "tool_call":
		return preview(text, toolCallHead, toolCallTail)
	case "thinking":
		return preview(text, thinkingHead, thinkingTail)
	}
	return text
}

// renderItem renders one item with previews applied and delimiters neutralized.
func renderItem(index int, it transcript.Item) rendered {
	text := prefix(it) + neutralize(previewBody(it)) + "\n"
	return rendered{index: index, text: text, tokens: estimate.Tokens(text)}
}

// omitNote replaces an item too large for the summarizer's budget. The note says plainly that
// something was left out and shows its beginning, so the summary can still mention it.
func omitNote(index int, it transcript.Item, tokens int) rendered {
	glimpse := headRunes(strings.TrimSpace(it.Text), noteGlimpse)
	text := prefix(it) + fmt.Sprintf("[ctxc omitted this item: about %d tokens, more than one request can hold. It began: %s …]\n",
		tokens, neutralize(strings.Join(strings.Fields(glimpse), " ")))
	return rendered{index: index, text: text, tokens: estimate.Tokens(text)}
}

// preview keeps the first head and last tail characters of s with an elision note between, or
// s itself when it is short. Cuts move to a nearby line break when there is one, so the kept
// parts are whole lines.
func preview(s string, head, tail int) string {
	n := utf8.RuneCountInString(s)
	if n <= head+tail+previewSlack {
		return s
	}
	return elide(s, s, n, head, tail)
}

// previewEnds is preview for an item read only at its ends (Item.Tail): the same cuts, with
// the length of the whole taken from Item.Chars.
func previewEnds(it transcript.Item, head, tail int) string {
	start := strings.TrimLeftFunc(it.Text, unicode.IsSpace)
	end := strings.TrimRightFunc(it.Tail, unicode.IsSpace)
	n := it.Chars - utf8.RuneCountInString(it.Text[:len(it.Text)-len(start)]) - utf8.RuneCountInString(it.Tail[len(end):])
	return elide(start, end, n, head, tail)
}

// elide keeps the first head characters of start and the last tail characters of end (the two
// ends of a text of n characters), moved to a nearby line break, with an elision note between.
func elide(start, end string, n, head, tail int) string {
	h := headRunes(start, head)
	if i := strings.LastIndexByte(h, '\n'); i > len(h)/2 {
		h = h[:i]
	}
	t := tailRunes(end, tail)
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)/2 {
		t = t[i+1:]
	}
	elided := n - utf8.RuneCountInString(h) - utf8.RuneCountInString(t)
	var b strings.Builder
	b.Grow(len(h) + len(t) + 48)
	b.WriteString(h)
	b.WriteString("\n[… ")
	b.WriteString(strconv.Itoa(elided))
	b.WriteString(" chars elided by ctxc …]\n")
	b.WriteString(t)
	return b.String()
}

// headRunes returns the first n code points of s.
func headRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// tailRunes returns the last n code points of s.
func tailRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// neutralize keeps data from closing or opening ctxc's delimiters: "</transcript>" inside a tool
// result would otherwise end the data block early and let the rest read as instructions.
func neutralize(s string) string {
	if !strings.Contains(s, "transcript>") && !strings.Contains(s, "<part") && !strings.Contains(s, "</part") {
		return s
	}
	return delimiterEscaper.Replace(s)
}

var delimiterEscaper = strings.NewReplacer(
	"</transcript>", "</ transcript>",
	"<transcript>", "< transcript>",
	"</part>", "</ part>",
	"<part>", "< part>",
	"<part ", "< part ",
)

package omp

import (
	"strings"
	"unicode"
)

// Render is the text omp sends for one of its prompt templates once the values are in it (omp
// 18.2.3's post-render pass over a rendered template, which its summary wrappers go through
// with the summary inside them), line by line, outside ``` and ~~~ fences:
//   - white space at the end of a line is cut;
//   - a blank line before another blank line, or at the start or the end, is dropped, with
//     every blank line that follows it (two blank lines in a row leave none);
//   - blank lines before a closing tag line (</name>) are dropped;
//   - a table line (|…|) has its cells trimmed, a table rule (|---|:--|) is rewritten as
//     |---|:---|.
func Render(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	fenced := false
	dropBlanks := func() {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	for d := 0; d < len(lines); d++ {
		g := trimEnd(lines[d])
		h := indent(g)
		if fence(g[h:]) {
			fenced = !fenced
			out = append(out, g)
			continue
		}
		if fenced {
			out = append(out, g)
			continue
		}
		closing := false
		if rest := g[h:]; strings.HasPrefix(rest, "</") {
			closing = closingTag(rest)
		} else if strings.HasPrefix(rest, "|") {
			g = g[:h] + tableLine(rest)
		}
		if h >= len(g) {
			if d+1 == len(lines) || blank(lines[d+1]) {
				dropBlanks()
				for d+1 < len(lines) && blank(lines[d+1]) {
					d++
				}
				continue
			}
			if len(out) == 0 || out[len(out)-1] == "" {
				continue
			}
		}
		if closing {
			dropBlanks()
		}
		out = append(out, g)
	}
	dropBlanks()
	return strings.Join(out, "\n")
}

// jsSpace is white space as JavaScript's trim takes it.
func jsSpace(r rune) bool { return (unicode.IsSpace(r) && r != '\u0085') || r == '\uFEFF' }

// trimEnd cuts a line's trailing white space (omp looks only when its last character is a
// control character, a space or not ASCII).
func trimEnd(l string) string {
	if l == "" {
		return l
	}
	if c := l[len(l)-1]; c > ' ' && c < 0x80 {
		return l
	}
	return strings.TrimRightFunc(l, jsSpace)
}

// indent is the length of a line's leading spaces and tabs (any white space when what follows
// them is not ASCII).
func indent(g string) int {
	h := 0
	for h < len(g) && (g[h] == ' ' || g[h] == '\t') {
		h++
	}
	if h < len(g) && g[h] >= 0x80 {
		h = len(g) - len(strings.TrimLeftFunc(g, jsSpace))
	}
	return h
}

// blank: a line with no character but white space (an empty one included).
func blank(l string) bool { return strings.TrimFunc(l, jsSpace) == "" }

// fence: a line (from its first character) that opens or closes a code fence.
func fence(s string) bool { return strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") }

// closingTag: the line is </name> with a name of lower-case letters, "-" and "_".
func closingTag(s string) bool {
	if len(s) < 4 || s[len(s)-1] != '>' {
		return false
	}
	for _, c := range []byte(s[2 : len(s)-1]) {
		if !(c >= 'a' && c <= 'z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// tableLine is a table line as omp renders it: a rule with its cells as ---, :---, ---: or
// :---:, any other line that ends with "|" with its cells trimmed.
func tableLine(s string) string {
	if len(s) < 2 || s[len(s)-1] != '|' || strings.ContainsAny(s, "\r\u2028\u2029") {
		return s
	}
	cells := strings.Split(s, "|")
	if tableRule(s) {
		var rule []string
		for _, c := range cells {
			c = strings.TrimFunc(c, jsSpace)
			if c == "" {
				continue
			}
			left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
			switch {
			case left && right:
				rule = append(rule, ":---:")
			case left:
				rule = append(rule, ":---")
			case right:
				rule = append(rule, "---:")
			default:
				rule = append(rule, "---")
			}
		}
		return "|" + strings.Join(rule, "|") + "|"
	}
	for i, c := range cells {
		cells[i] = strings.TrimFunc(c, jsSpace)
	}
	return strings.Join(cells, "|")
}

// tableRule: a table line of nothing but "-", ":", "|" and white space between its first and
// last "|".
func tableRule(s string) bool {
	return len(s) >= 3 && strings.IndexFunc(s[1:len(s)-1], func(r rune) bool {
		return !(r == '-' || r == ':' || r == '|' || jsSpace(r))
	}) < 0
}

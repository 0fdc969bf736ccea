package compact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// InstructionsHeading names the Markdown section of a project's CLAUDE.md or AGENTS.md that
// holds its default instructions for a compaction.
const InstructionsHeading = "Compact Instructions"

// InstructionFiles are the files of a project folder read for that section, in order: the
// first that has it gives the instructions.
var InstructionFiles = []string{"CLAUDE.md", "AGENTS.md"}

// maxHeadingLevel is the deepest Markdown heading (######).
const maxHeadingLevel = 6

// Section returns the text under the first heading named name (an ATX heading, "#" to "######",
// any level, the name compared without regard to case) up to the next heading of the same or a
// higher level, trimmed. Lines inside fenced code blocks are not headings. ok is false when no
// heading has the name.
func Section(markdown, name string) (text string, ok bool) {
	var body []string
	level, fence := 0, ""
	for line := range strings.Lines(markdown) {
		line = strings.TrimRight(line, "\r\n")
		fence = fenceAfter(line, fence)
		l, title := heading(line)
		if fence != "" || isFence(line) {
			l = 0
		}
		switch {
		case level == 0 && l > 0 && strings.EqualFold(title, name):
			level = l
		case level > 0 && l > 0 && l <= level:
			return strings.TrimSpace(strings.Join(body, "\n")), true
		case level > 0:
			body = append(body, line)
		}
	}
	return strings.TrimSpace(strings.Join(body, "\n")), level > 0
}

// heading reads an ATX heading: its level (0: the line is not one) and its title.
func heading(line string) (int, string) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return 0, "" // indented code
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > maxHeadingLevel || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(s[n:])
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		title = strings.TrimSpace(t) // a closing sequence of #
	}
	return n, title
}

// isFence reports a line that opens or closes a fenced code block.
func isFence(line string) bool {
	s := strings.TrimLeft(line, " ")
	return len(line)-len(s) <= 3 && (strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~"))
}

// fenceAfter is the open fence after line, given the one open before it ("" outside code).
func fenceAfter(line, open string) string {
	if !isFence(line) {
		return open
	}
	s := strings.TrimLeft(line, " ")
	mark := s[:3]
	if open == "" {
		return mark
	}
	if mark == open && strings.TrimSpace(strings.TrimLeft(s, mark[:1])) == "" {
		return ""
	}
	return open
}

// ProjectInstructions are the instructions of project folder dir: the Compact Instructions
// section of the first of its InstructionFiles that has a non-empty one, and that file's path.
// A folder without any gives "" and no error; a file that exists but cannot be read is an error
// naming it.
func ProjectInstructions(dir string) (text, file string, err error) {
	for _, name := range InstructionFiles {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue // no such file, or the project folder is gone
		}
		if err != nil {
			return "", "", fmt.Errorf("reading the compaction instructions of %s: %w", p, err)
		}
		if text, ok := Section(string(data), InstructionsHeading); ok && text != "" {
			return text, p, nil
		}
	}
	return "", "", nil
}

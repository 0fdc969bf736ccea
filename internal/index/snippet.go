package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// snippetWidth is about how many characters of a message a result shows.
const snippetWidth = 160

// Complete fills each result's snippet (read back from its line, around the first query term
// it holds) and the command that resumes its session in its agent.
func (r *Reader) Complete(results []Result, query string) {
	terms := queryTerms(query)
	for i := range results {
		res := &results[i]
		res.Snippet = snippetAt(res, terms)
		res.Resume = ResumeCommand(res.Agent, res.Session, res.Project, res.Path)
	}
}

// snippetAt reads the result's message back and cuts the part around the first query term.
func snippetAt(res *Result, terms []string) string {
	rc, err := openAt(res.Path, res.offset)
	if err != nil {
		return ""
	}
	defer rc.Close()
	l, err := jsonl.NewLineReaderSize(rc, 8<<10).Next() // (a longer line is gathered whole)
	if err != nil {
		return ""
	}
	rec, ok := transcript.DecodeRecordTransient(transcript.Format(res.Agent), l.Bytes, res.Line)
	if !ok {
		return ""
	}
	var first string
	for i := range rec.Messages {
		if roleOf(&rec.Messages[i]) != res.Role {
			continue
		}
		for _, t := range messageTexts(&rec.Messages[i], nil) {
			if first == "" {
				first = t
			}
			if at := findTerm(t, terms); at >= 0 {
				return cut(t, at)
			}
		}
	}
	return cut(first, 0)
}

// findTerm finds the first place in text where one of terms starts a word (ignoring case).
func findTerm(text string, terms []string) int {
	low := strings.ToLower(text)
	best := -1
	for _, t := range terms {
		for from := 0; ; {
			i := strings.Index(low[from:], t)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordRune(lastRune(low[:i])) {
				if best < 0 || i < best {
					best = i
				}
				break
			}
			from = i + len(t)
		}
	}
	if best >= len(text) {
		return -1
	}
	return best
}

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// cut gives about snippetWidth characters of text around byte at, on one line.
func cut(text string, at int) string {
	from := max(0, at-snippetWidth/3)
	if sp := strings.IndexAny(text[from:at], " \n\t"); from > 0 && sp >= 0 {
		from += sp + 1 // start at a word
	}
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	to := min(len(text), from+snippetWidth)
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

// ResumeCommand is the shell command that resumes a session in its agent ("" when the agent
// has none: a generic message list).
func ResumeCommand(agent, session, project, path string) string {
	cd := ""
	if project != "" {
		cd = "cd " + shellQuote(project) + " && "
	}
	f := transcript.Format(agent)
	if f == transcript.FormatPi && openclawstore.IsSessionName(path) {
		return "" // OpenClaw resumes a session of its store by its session key, not by id
	}
	if c := f.Agent().ResumeCommand(session, path, shellQuote); c != "" {
		return cd + c
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < utf8.RuneSelf && (termLower[r] != 0 || strings.ContainsRune("-_./:@%+=,", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// containsFold reports whether sub is in s, ignoring case.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

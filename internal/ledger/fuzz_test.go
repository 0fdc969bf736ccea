package ledger

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/transcript"
)

var fuzzTools = []string{"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "shell", "exec_command", "edit", "write", "bash", "read", "Read"}

// FuzzBuild: whatever the tool calls, user messages, results and earlier summaries hold, the
// ledger has well-formed facts, and the audit of any summary stays within the target and, when
// nothing was dropped, holds every fact in a form the next compaction reads back.
func FuzzBuild(f *testing.F) {
	f.Add(uint8(0), `{"file_path":"/a/b.go"}`, "Never push to main. see https://x.io/1 v1.2.3", "## Files modified\n- `c.go`", "boom: error", 500)
	f.Add(uint8(4), "*** Begin Patch\n*** Update File: x.rs\n*** End Patch", "ok", "", "", 50)
	f.Add(uint8(5), `{"command":["bash","-lc","cat > f.txt <<'EOF'\n> g\nEOF\nsed -i '' s/a/b/ h.go"]}`, "always `tabs`", "## User rules\n- \"always `tabs`\"\n  x", "", 3000)
	f.Add(uint8(8), `{"path":"~/.pi/x.json"}`, "\"quoted\"\n\n  indented\n- bullet\n## heading", "> q\n> r", "", 10)
	f.Fuzz(func(t *testing.T, tool uint8, args, text, summary, errText string, target int) {
		items := []transcript.Item{
			{Role: "user", Kind: "summary", Text: summary},
			{Role: "user", Kind: "text", Text: text},
			{Role: "assistant", Kind: "tool_call", Name: fuzzTools[int(tool)%len(fuzzTools)], Text: args, Group: 1},
			{Role: "tool", Kind: "tool_result", Text: errText, IsError: true, Group: 1},
		}
		l := Build(items, Options{})
		for _, fact := range l.Facts() {
			if norm(fact.Text) == "" || fact.Text != strings.TrimSpace(fact.Text) {
				t.Fatalf("malformed %s fact %q", fact.Cat, fact.Text)
			}
			if fact.Cat.token() && strings.ContainsAny(fact.Text, "`\n\r") {
				t.Fatalf("%s token with a backquote or line break: %q", fact.Cat, fact.Text)
			}
		}
		target %= 5000
		if target < 0 {
			target = -target
		}
		out, rep := Audit(summary, l, target)
		if target > 0 && estimate.Tokens(out) > target {
			t.Fatalf("%d tokens > target %d", estimate.Tokens(out), target)
		}
		if rep.Facts != l.Len() || rep.Present+rep.Carried+rep.Dropped != rep.Facts {
			t.Fatalf("counts %+v for %d facts", rep.Counts, l.Len())
		}
		if rep.Dropped == 0 {
			facts := l.Facts()
			for i, ok := range prepare(facts).held(out) {
				if !ok {
					t.Fatalf("%s fact %q not read back from:\n%s", facts[i].Cat, facts[i].Text, out)
				}
			}
		}
	})
}

// refsTwoPass is refs as first written: every regexp on every text, matches blanked by a second
// pass of the regexp. refs must find the same references.
func refsTwoPass(t string) []string {
	type hit struct {
		at int
		s  string
	}
	var hits []hit
	for _, m := range urlRe().FindAllStringIndex(t, -1) {
		hits = append(hits, hit{m[0], strings.TrimRight(t[m[0]:m[1]], ".,;:!?)]}'\"")})
	}
	spaces := func(s string) string { return strings.Repeat(" ", len(s)) }
	rest := urlRe().ReplaceAllStringFunc(t, spaces)
	for _, re := range []*regexp.Regexp{uuidRe(), versionRe(), ticketRe()} {
		for _, m := range re.FindAllStringIndex(rest, -1) {
			if !inWord(rest, m[0], m[1]) {
				hits = append(hits, hit{m[0], rest[m[0]:m[1]]})
			}
		}
		rest = re.ReplaceAllStringFunc(rest, spaces)
	}
	for _, m := range shaRe().FindAllStringIndex(rest, -1) {
		s := rest[m[0]:m[1]]
		if strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "abcdef") && !inWord(rest, m[0], m[1]) {
			hits = append(hits, hit{m[0], s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.s)
	}
	return out
}

func FuzzRefs(f *testing.F) {
	for _, s := range []string{"see https://x.io/a-b.c v1.2.3 and PROJ-12, 0a1b2c3d4e, 123e4567-e89b-12d3-a456-426614174000",
		"file at 01.27.21.png v2.0 git://h/r.git#abc1234", "ABC-1-2 deadbee- -cafe123", "http://a.b/0123456789abcdef fin."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := refs(s), refsTwoPass(s); !slices.Equal(got, want) {
			t.Fatalf("refs(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzMatch: whatever the fact and the text, matching does not fail; a fact is found in a text
// that is the fact itself, verbatim; and a text fact (rule, request, error) that the strict rule
// finds, the default finds verbatim too.
func FuzzMatch(f *testing.F) {
	f.Add(uint8(0), "Never push to main.", "The user does not want pushes to main.")
	f.Add(uint8(2), "/Users/dev/app/tests/test_x.py", "see `tests/test_x.py:12` and x.py")
	f.Add(uint8(2), `C:\work\a b\main.go`, "edited C:/work/a b/main.go")
	f.Add(uint8(3), "https://example.com/a/?utm_source=x#top", "example.com/a")
	f.Add(uint8(3), "3f9a1c2e8b7d", "commit 3f9a1c2.")
	f.Add(uint8(4), "Use pnpm, not npm. Keep lines under 100 characters.", "pnpm instead of npm; lines under 100 characters")
	f.Fuzz(func(t *testing.T, cat uint8, fact, text string) {
		c := Category(cat % uint8(NumCategories))
		fact = strings.TrimSpace(fact)
		if norm(fact) == "" || c.token() && strings.ContainsAny(fact, "`\n\r") {
			return // not a fact the ledger holds
		}
		l := &Ledger{}
		l.ByCat[c] = []string{fact}
		l.ByCat[Modified] = append(l.ByCat[Modified], "/p/other/util.go")
		i := 0
		if c == Modified {
			i = 1
			l.ByCat[Modified] = []string{"/p/other/util.go", fact}
		}
		if got := Match(text, l, MatchOptions{})[c][i]; got > Restated {
			t.Fatalf("how %d", got)
		}
		if got := Match(fact, l, MatchOptions{})[c][i]; got != Verbatim {
			t.Fatalf("%s fact %q in a text that is the fact: %s", c, fact, got)
		}
		if !c.token() && Match(text, l, MatchOptions{Strict: true})[c][i] == Verbatim {
			if got := Match(text, l, MatchOptions{})[c][i]; got != Verbatim {
				t.Fatalf("%s fact %q verbatim by the strict rule, %s by default, in %q", c, fact, got, text)
			}
		}
	})
}

package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/transcript"
)

func sample() *Ledger {
	l := &Ledger{}
	l.ByCat[Rule] = []string{"Never push to main.", "Use tabs, not spaces,\nin every Go file."}
	l.ByCat[LastRequest] = []string{"now add the retry test"}
	l.ByCat[Modified] = []string{"src/a.go", "docs/my notes.md"}
	l.ByCat[Ref] = []string{"https://example.com/x?y=1"}
	l.ByCat[Request] = []string{"fix the parser"}
	l.ByCat[Error] = []string{"panic: nil map"}
	l.ByCat[Read] = []string{"go.mod"}
	return l
}

// has reports whether every fact of l is read back from text by parse.
func readBack(t *testing.T, text string, l *Ledger) {
	t.Helper()
	got := presentSet(text)
	for _, f := range l.Facts() {
		if !got[Fact{Cat: f.Cat, Text: norm(f.Text)}] {
			t.Errorf("%s fact %q not read back from:\n%s", f.Cat, f.Text, text)
		}
	}
}

func TestAuditCarriesMissing(t *testing.T) {
	l := sample()
	body := "## Goal\nFix things.\n## User rules and preferences\n- \"Never push to main.\"\n- use tabs (paraphrased)\n## Files modified\n- `src/a.go`: retry loop\n- edited the notes"
	out, rep := Audit(body, l, 2000)
	if !strings.HasPrefix(out, body) {
		t.Fatalf("summary text not kept:\n%s", out)
	}
	if rep.Facts != 9 || rep.Present != 2 || rep.Carried != 7 || rep.Dropped != 0 {
		t.Errorf("counts = %+v, want 9 facts, 2 present, 7 carried", rep.Counts)
	}
	if c := rep.ByCat[Rule]; c != (Counts{Facts: 2, Present: 1, Carried: 1}) {
		t.Errorf("rules = %+v", c)
	}
	if strings.Count(out, "Never push to main.") != 1 {
		t.Errorf("a present fact was carried again:\n%s", out)
	}
	if rep.PerCategory["files_modified"].Carried != 1 {
		t.Errorf("per category = %+v", rep.PerCategory)
	}
	readBack(t, out, l)
	if !strings.Contains(out, CarriedTitle+"\n") || !strings.Contains(out, "### Files modified\n- `docs/my notes.md`\n") {
		t.Errorf("carried section:\n%s", out)
	}
}

func TestAuditNothingMissing(t *testing.T) {
	l := &Ledger{}
	l.ByCat[Modified] = []string{"a/b.go"}
	l.ByCat[LastRequest] = []string{"ship it"}
	body := "## Files modified\n- a/b.go\n## Last user request\n> ship it"
	out, rep := Audit(body, l, 100)
	if out != body || rep.Present != 2 || rep.Carried != 0 {
		t.Fatalf("out=%q rep=%+v", out, rep.Counts)
	}
	out, rep = Audit(body, nil, 100)
	if out != body || rep.Facts != 0 {
		t.Fatalf("empty ledger changed the summary: %q %+v", out, rep)
	}
}

func TestAuditWithinTarget(t *testing.T) {
	l := sample()
	var body strings.Builder
	for i := range 200 {
		body.WriteString("- line " + strings.Repeat("x", i%50) + "\n")
	}
	for _, target := range []int{60, 120, 300, 1000, 5000} {
		out, rep := Audit(body.String(), l, target)
		if n := estimate.Tokens(out); n > target {
			t.Errorf("target %d: %d tokens", target, n)
		}
		if rep.Present+rep.Carried+rep.Dropped != rep.Facts {
			t.Errorf("target %d: counts do not add up: %+v", target, rep.Counts)
		}
		if target >= 300 {
			if rep.Dropped != 0 {
				t.Errorf("target %d: dropped %d", target, rep.Dropped)
			}
			readBack(t, out, l)
			if target < 5000 && !strings.Contains(out, cutNote) || !strings.HasPrefix(out, "- line \n") {
				t.Errorf("target %d: summary not cut at its end:\n%s", target, out)
			}
		}
		if target == 5000 && strings.Contains(out, cutNote) {
			t.Errorf("target 5000: cut needlessly")
		}
	}
}

// TestAuditPriority: when the ledger alone exceeds the target, rules, the last request and the
// modified files are kept before the rest, and the section says what was left out.
func TestAuditPriority(t *testing.T) {
	l := &Ledger{}
	l.ByCat[Rule] = []string{"always write tests first"}
	l.ByCat[LastRequest] = []string{"deploy to staging"}
	for i := range 10 {
		l.ByCat[Modified] = append(l.ByCat[Modified], "pkg/file"+strings.Repeat("x", i)+".go")
		l.ByCat[Read] = append(l.ByCat[Read], "vendor/lib"+strings.Repeat("y", i)+".go")
	}
	for i := range 20 {
		l.ByCat[Request] = append(l.ByCat[Request], "please do task number "+strings.Repeat("z", i))
	}
	out, rep := Audit("## Goal\n- stuff", l, 200)
	if n := estimate.Tokens(out); n > 200 {
		t.Fatalf("%d tokens > 200", n)
	}
	for _, c := range []Category{Rule, LastRequest, Modified} {
		if rep.ByCat[c].Dropped != 0 {
			t.Errorf("%s dropped: %+v\n%s", c, rep.ByCat[c], out)
		}
	}
	if rep.Dropped == 0 || !strings.Contains(out, "Left out for space: ") {
		t.Errorf("nothing reported left out: %+v\n%s", rep.Counts, out)
	}
	// The summary's text is kept only where it costs no fact: with it, no more facts are
	// dropped than with the ledger alone.
	alone, repAlone := Audit("", l, 200)
	if rep.Dropped > repAlone.Dropped || !strings.HasPrefix(alone, CarriedTitle) {
		t.Errorf("dropped %d with the summary, %d without", rep.Dropped, repAlone.Dropped)
	}
}

// TestRepeatedCompaction: the facts of an audited summary are read back when that summary is
// in the next middle zone, and survive a summarizer that writes nothing useful.
func TestRepeatedCompaction(t *testing.T) {
	items := []transcript.Item{
		user("Never use global state."),
		call("Edit", `{"file_path":"one.go"}`),
		user("first task"),
	}
	summary := "gibberish"
	for round := range 10 {
		l := Build(items, Options{})
		var rep Report
		summary, rep = Audit("zxq blorp "+summary[:min(len(summary), 20)], l, 400)
		if n := estimate.Tokens(summary); n > 400 {
			t.Fatalf("round %d: %d tokens", round, n)
		}
		if rep.Dropped != 0 {
			t.Fatalf("round %d: dropped %+v", round, rep.Counts)
		}
		items = []transcript.Item{
			{Role: "user", Kind: "summary", Text: summary},
			call("write", `{"path":"round`+string(rune('a'+round))+`.ts"}`),
			user("task of round " + string(rune('a'+round))),
		}
	}
	l := Build(items, Options{})
	if !slices.Contains(l.ByCat[Rule], "Never use global state.") {
		t.Errorf("rule lost: %q", l.ByCat[Rule])
	}
	if mod := l.ByCat[Modified]; len(mod) != 11 || mod[0] != "one.go" {
		t.Errorf("modified = %q", mod)
	}
	if got := l.ByCat[LastRequest]; !slices.Equal(got, []string{"task of round j"}) {
		t.Errorf("last request = %q", got)
	}
	if !slices.Contains(l.ByCat[Request], "first task") {
		t.Errorf("requests = %q", l.ByCat[Request])
	}
}

func TestParseForms(t *testing.T) {
	text := `## User rules and preferences
- Never do X (paraphrase, not read)
- "Quoted rule"
- “Curly quoted”
> block quoted
> rule
## Files modified
- ` + "`a b/c.go`" + ` — why
- pkg/x.go: added
- Makefile
- none
## URLs, ids and versions
- v1.2.3
- https://x.y/z
- hello
## Errors
- "not a category heading: ignored"
`
	var got []string
	for _, f := range parse(text) {
		got = append(got, f.Cat.String()+":"+f.Text)
	}
	want := []string{"rules:Quoted rule", "rules:Curly quoted", "rules:block quoted\nrule",
		"files_modified:a b/c.go", "files_modified:pkg/x.go", "refs:v1.2.3", "refs:https://x.y/z"}
	if !slices.Equal(got, want) {
		t.Errorf("parse = %q\nwant %q", got, want)
	}
}

func TestCheck(t *testing.T) {
	l := sample()
	ctx := "user: Never push to main.\nassistant: editing `src/a.go` and docs/my notes.md\nUse tabs, not spaces, in every Go file."
	got := Check(ctx, l)
	if got[Rule] != [2]int{2, 2} || got[Modified] != [2]int{2, 2} || got[LastRequest] != [2]int{1, 0} {
		t.Errorf("check = %v", got)
	}
}

// TestNote: a note carries every fact within its target, by priority, and reads back as the
// ledger it was made from.
func TestNote(t *testing.T) {
	l := &Ledger{}
	l.ByCat[Rule] = []string{"never push to master"}
	l.ByCat[LastRequest] = []string{"fix the flaky test in pkg/x"}
	l.ByCat[Modified] = []string{"pkg/x/x.go", "pkg/x/x_test.go"}
	note, rep := Note(l, 2000)
	if rep.Carried != 4 || rep.Dropped != 0 || !strings.Contains(note, noteIntro) || strings.Contains(note, carriedIntro) {
		t.Fatalf("note %q, report %+v", note, rep)
	}
	back := map[Fact]bool{}
	for _, f := range parse(note) {
		back[f] = true
	}
	for _, f := range l.Facts() {
		if !back[f] {
			t.Errorf("%v not read back from the note:\n%s", f, note)
		}
	}
	small, rep := Note(l, 60)
	if rep.Dropped == 0 || estimate.Tokens(small) > 60 || !strings.Contains(small, "never push to master") {
		t.Fatalf("a small target keeps the rule first and fits: %d tokens, %+v:\n%s", estimate.Tokens(small), rep, small)
	}
}

func TestWithout(t *testing.T) {
	l := &Ledger{}
	l.ByCat[Rule], l.Lines[Rule] = []string{"never push to master", "use pnpm"}, []int{3, 9}
	l.ByCat[Modified], l.Lines[Modified] = []string{"a.go"}, []int{5}
	w := l.Without("We will USE   pnpm and edit `a.go`.")
	if w.Len() != 1 || w.ByCat[Rule][0] != "never push to master" || w.Line(Rule, 0) != 3 {
		t.Fatalf("%+v", w)
	}
}

// TestAuditHoldsFilesAsSummariesNameThem: ctxc's own carried section does not repeat a file the
// summary lists under its heading by its path in the project or its unambiguous name; a file
// named only in prose, or by a name two files share, is carried. What is counted present is
// what the next compaction reads back, and that form still holds the file.
func TestAuditHoldsFilesAsSummariesNameThem(t *testing.T) {
	l := &Ledger{}
	l.ByCat[Modified] = []string{"/home/dev/app/internal/api/limit.go", "/home/dev/app/README.md", "/home/dev/app/cmd/main.go",
		"/home/dev/app/a/util.go", "/home/dev/app/b/util.go"}
	body := "## Goal\nRate limiting; main.go wires it in.\n## Files modified\n- `internal/api/limit.go`: token bucket\n- README.md\n- `util.go`: helpers"
	out, rep := Audit(body, l, 2000)
	if c := rep.ByCat[Modified]; c.Present != 2 || c.Carried != 3 {
		t.Errorf("files modified %+v, want 2 present (limit.go, README.md), 3 carried:\n%s", c, out)
	}
	for _, carried := range []string{"- `/home/dev/app/cmd/main.go`", "- `/home/dev/app/a/util.go`", "- `/home/dev/app/b/util.go`"} {
		if !strings.Contains(out, carried) {
			t.Errorf("%s not carried:\n%s", carried, out)
		}
	}
	next := Build([]transcript.Item{{Role: "user", Kind: "summary", Text: out}}, Options{})
	for i, ok := range Found(strings.Join(next.ByCat[Modified], "\n"), l)[Modified] {
		if !ok {
			t.Errorf("%s not read back by the next compaction: %q", l.ByCat[Modified][i], next.ByCat[Modified])
		}
	}
}

package memory

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
)

// corpus is the shared samples written by real agents (when they are beside the repository) and
// the repository's fixtures.
func corpus(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"../../../shared/samples", "../../testdata/fixtures"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no sessions to read")
	}
	return files
}

// readable keeps the files ctxc reads as transcripts (fixtures include broken ones on purpose).
func readable(files []string) []string {
	var out []string
	for _, f := range files {
		if _, _, err := fileObservations(f, ReadOptions{}); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// lineText is everything a line of a session says, decoded: its messages' text and tool-call
// arguments, lower case.
func lineText(t *testing.T, path string, num int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format, err := transcript.Detect(f, path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Seek(0, 0)
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if n == num {
			rec, ok := transcript.DecodeRecord(format, line, num)
			if !ok {
				t.Fatalf("%s:%d: not a record", path, num)
			}
			var b strings.Builder
			for _, m := range rec.Messages {
				for _, bl := range m.Blocks {
					b.WriteString(bl.Text + " " + bl.Args + " ")
				}
			}
			return strings.ToLower(b.String())
		}
		if err != nil {
			t.Fatalf("%s has no line %d", path, num)
		}
	}
}

// TestEverySourceHoldsItsEntry: no entry without a source line that says it. Each word of an
// entry (for a command: each word left after ctxc dropped redirections and test filters) is on
// each of its source lines.
func TestEverySourceHoldsItsEntry(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	files := append(readable(corpus(t)), a, b)
	m, err := Read(context.Background(), files, Options{Max: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d entries from %d files", len(m.Entries), len(files))
	if len(m.Entries) < 20 {
		t.Fatalf("only %d entries from %d files", len(m.Entries), len(files))
	}
	for _, e := range m.Entries {
		if len(e.Sources) == 0 {
			t.Errorf("entry without a source: %+v", e)
		}
		for _, src := range e.Sources {
			text := lineText(t, src.Path, src.Line)
			for _, w := range strings.Fields(strings.ToLower(e.Text)) {
				w = strings.Trim(w, ".,;:!?\"'`()")
				if w == "[…]" {
					continue // where the ledger shortened a long rule (its head and tail kept)
				}
				if w != "" && !strings.Contains(text, w) {
					t.Errorf("%s:%d does not hold %q of the %s entry %q", src.Path, src.Line, w, e.Kind, e.Text)
				}
			}
		}
	}
}

// TestEveryLedgerRuleIsRemembered: each rule the ledger finds in the whole history of a session
// (what the user typed, outside summaries) is in the memory, sentence by sentence, with its line
// among the sources when the rule was said at most MaxSources times.
func TestEveryLedgerRuleIsRemembered(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	files := append(readable(corpus(t)), a, b)
	rules := 0
	for _, path := range files {
		m, err := Read(context.Background(), []string{path}, Options{Max: 100000})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ledgerRules(t, path) {
			for _, s := range ledger.RuleSentences(r.text, maxSentence) {
				if !durable(s) {
					continue
				}
				rules++
				e := find(m.Entries, Rule, s)
				if e == nil {
					e = find(m.Entries, Constraint, s)
				}
				if e == nil {
					t.Errorf("%s:%d: the ledger's rule %q is not in the memory", path, r.line, s)
					continue
				}
				if e.Count <= MaxSources && !hasLine(e.Sources, r.line) {
					t.Errorf("%s:%d: rule %q has sources %+v", path, r.line, s, e.Sources)
				}
			}
		}
	}
	t.Logf("%d rules of the ledger in %d files", rules, len(files))
	if rules < 10 {
		t.Errorf("only %d rules checked", rules)
	}
}

type ruleAt struct {
	text string
	line int
}

// ledgerRules are the rules of package ledger over every line of a file, each user message
// apart (the ledger keeps a rule once, at its last line).
func ledgerRules(t *testing.T, path string) []ruleAt {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format, _ := transcript.Detect(f, path, transcript.Options{})
	f.Seek(0, 0)
	lr := jsonl.NewLineReader(f)
	var out []ruleAt
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		rec, ok := transcript.DecodeRecord(format, l.Bytes, l.Num)
		if !ok || rec.Sidechain {
			continue // a subagent's prompt is the main agent's text, not the user's
		}
		var ms []transcript.Message
		for _, m := range rec.Messages {
			if !m.Summary {
				ms = append(ms, m)
			}
		}
		led := ledger.Build(transcript.Flatten(ms), ledger.Options{})
		for i, r := range led.ByCat[ledger.Rule] {
			out = append(out, ruleAt{r, led.Line(ledger.Rule, i)})
		}
	}
	return out
}

func hasLine(srcs []Source, line int) bool {
	for _, s := range srcs {
		if s.Line == line {
			return true
		}
	}
	return false
}

package audit

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// compactionLines reads, independently of the readers, the lines of a file's compaction
// records and the summary each one holds.
func compactionLines(t *testing.T, path string) (lines []int, summaries []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	pendingClaude := false
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case gjson.Get(l, "type").Str == "compaction": // pi
			lines, summaries = append(lines, n), append(summaries, gjson.Get(l, "summary").Str)
		case gjson.Get(l, "type").Str == "compacted": // codex
			lines, summaries = append(lines, n), append(summaries, gjson.Get(l, "payload.message").Str)
		case gjson.Get(l, "subtype").Str == "compact_boundary": // claude code: the summary follows
			lines = append(lines, n)
			pendingClaude = true
		case pendingClaude && gjson.Get(l, "isCompactSummary").Bool():
			summaries = append(summaries, gjson.Get(l, "message.content").String())
			pendingClaude = false
		}
	}
	return lines, summaries
}

// TestAuditAgreesWithRecords: the audit finds every compaction record where it is, and the
// context right after it holds that record's summary, as ctxc load reads it.
func TestAuditAgreesWithRecords(t *testing.T) {
	files := []string{
		"../../testdata/fixtures/pi-v1-two-compactions.jsonl",
		"../../testdata/fixtures/claude-2.1.330-manual-compact-hook.jsonl",
		"../../testdata/fixtures/claude-compact-boundary.jsonl",
		"../../testdata/fixtures/claude-preserved-compaction.jsonl",
		"../../testdata/fixtures/codex-legacy-compacted.jsonl",
	}
	if _, err := os.Stat("../../../shared/samples/pi"); err == nil {
		files = append(files, "../../../shared/samples/pi/agent-sessions-v3-fixture-model-2-compactions.jsonl")
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			cs, err := File(context.Background(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			lines, summaries := compactionLines(t, path)
			if len(cs) != len(lines) || len(cs) == 0 {
				t.Fatalf("%d compactions audited, %d records in the file", len(cs), len(lines))
			}
			res, err := transcript.ScanFile(path, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cs {
				if c.Line != lines[i] || c.Index != i+1 {
					t.Errorf("compaction %d at line %d, the record is at line %d", c.Index, c.Line, lines[i])
				}
				_, after, err := transcript.LoadFileUpTo(path, res.Stats.Records[i].End, transcript.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := summaryText(after); summaries[i] != "" && !strings.Contains(got, firstLine(summaries[i])) {
					t.Errorf("compaction %d: the context after it does not hold its summary %.80q:\n%.300s", c.Index, summaries[i], got)
				}
				if c.TokensAfter != tokens(after) {
					t.Errorf("compaction %d: %d tokens after, ctxc load reads %d", c.Index, c.TokensAfter, tokens(after))
				}
				if c.Total.Kept+c.Total.Restored+len(c.Lost) != c.Total.Facts {
					t.Errorf("compaction %d: kept %d + restored %d + lost %d != %d facts", c.Index, c.Total.Kept, c.Total.Restored, len(c.Lost), c.Total.Facts)
				}
			}
		})
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// TestScore: kept, restored by ctxc's note, lost, per category, with lines.
func TestScore(t *testing.T) {
	var c Compaction
	led := ledgerOf(t)
	score(&c, led, "we changed a.go", "", "[ctxc] note: never push to master", ledger.MatchOptions{})
	if c.Total.Facts != 3 || c.Total.Kept != 1 || c.Total.Restored != 1 || len(c.Lost) != 1 || c.Lost[0].Text != "b.go" || c.Lost[0].Line != 7 {
		t.Fatalf("%+v", c)
	}
	if c.Recall != 1.0/3 || c.WithNote != 2.0/3 {
		t.Fatalf("recall %v with note %v", c.Recall, c.WithNote)
	}
}

func ledgerOf(t *testing.T) *ledger.Ledger {
	t.Helper()
	l := &ledger.Ledger{}
	l.ByCat[ledger.Rule], l.Lines[ledger.Rule] = []string{"never push to master"}, []int{2}
	l.ByCat[ledger.Modified], l.Lines[ledger.Modified] = []string{"a.go", "b.go"}, []int{5, 7}
	return l
}

// fixture2065 is a Claude Code 2.0.65 auto-compaction of a session that modified 11 files under
// /Users/…/slopometry: its summary names them by their paths in the project or by their names.
const fixture2065 = "../../testdata/audit-labels/claude-2.0.65-auto-compact-relative-paths.jsonl"

// TestAuditFilesAsSummariesNameThem: the audit names no file as lost that the summary names
// (by its path in the project or its unambiguous name), and still names those it does not: the
// same summary with two files taken out of it loses exactly those two.
func TestAuditFilesAsSummariesNameThem(t *testing.T) {
	lostFiles := func(path string) []string {
		t.Helper()
		cs, err := File(context.Background(), path, Options{})
		if err != nil || len(cs) != 1 {
			t.Fatalf("%d compactions, %v", len(cs), err)
		}
		if k := cs[0].ByCat[ledger.Modified]; k.Facts != 11 {
			t.Fatalf("%d files modified in the ledger, want 11", k.Facts)
		}
		var lost []string
		for _, l := range cs[0].Lost {
			if l.Category == ledger.Modified.String() {
				lost = append(lost, l.Text)
			}
		}
		return lost
	}
	if lost := lostFiles(fixture2065); len(lost) != 0 {
		t.Errorf("files named by the summary counted lost: %q", lost)
	}
	data, err := os.ReadFile(fixture2065)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(data)
	for _, item := range []string{`   - formatters.py: format_plan_evolution renders the table.\n`, `   - transcript_saver.py: save_transcript copies the session file.\n`} {
		if !strings.Contains(edited, item) {
			t.Fatalf("the fixture's summary lacks %q", item)
		}
		edited = strings.Replace(edited, item, "", 1)
	}
	path := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"/Users/dev/src/slopometry/src/slopometry/display/formatters.py", "/Users/dev/src/slopometry/src/slopometry/core/transcript_saver.py"}
	if lost := lostFiles(path); !slices.Equal(lost, want) {
		t.Errorf("lost %q, want %q", lost, want)
	}
}

// TestAuditStrictIsVerbatim: with Strict the audit keeps the verbatim rule: the files the
// summary names by their paths in the project or their names are lost.
func TestAuditStrictIsVerbatim(t *testing.T) {
	cs, err := File(context.Background(), fixture2065, Options{Strict: true})
	if err != nil || len(cs) != 1 {
		t.Fatalf("%d compactions, %v", len(cs), err)
	}
	if k := cs[0].ByCat[ledger.Modified]; k.Kept != 0 || k.Facts != 11 {
		t.Errorf("strict: files modified kept %d of %d, want 0 of 11", k.Kept, k.Facts)
	}
	for _, f := range cs[0].Found {
		if f.How != ledger.Verbatim {
			t.Errorf("strict: %s %q found by %s", f.Category, f.Text, f.How)
		}
	}
}

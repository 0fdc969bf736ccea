package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/testsessions"
)

// decodeAllPatterns are patterns of each kind: fixed strings, regexps, case folded, text that
// is written with JSON escapes (quotes, line breaks), and one that matches nothing.
var decodeAllPatterns = []struct {
	p           string
	fixed, fold bool
}{
	{"the", true, false}, {"main.go", true, false}, {"tool_use", true, false},
	{`fo[or]\w+`, false, false}, {`Bash\s+command`, false, false}, {`path\s+\S+`, false, false}, {`\d{4}-\d\d`, false, false},
	{"ERROR", true, true}, {"summary", false, true}, {"café|naïve", false, true},
	{`"`, true, false}, {`\w+\n\w+`, false, false}, {"\t", true, false},
	{"zzqqxx-absent", true, false}, {`zz\d+qq`, false, false},
}

// TestDecodeAllAgrees: with DecodeAllEnv set, every line decoded, grep finds exactly what its
// fast paths find (every field of every hit, in order), on the fixtures and the samples, for
// the whole history, with --json's indexes and covering compactions, and for some roles.
func TestDecodeAllAgrees(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	if len(fixtures) == 0 {
		t.Fatal("no fixtures")
	}
	t.Run("fixtures", func(t *testing.T) { decodeAllAgrees(t, fixtures) })
	t.Run("samples", func(t *testing.T) {
		samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "samples", "*", "*.jsonl"))
		if len(samples) == 0 {
			t.Skip("no samples in ../shared/samples")
		}
		decodeAllAgrees(t, samples)
	})
}

func decodeAllAgrees(t *testing.T, files []string) {
	total := 0
	for _, f := range files {
		for _, pt := range decodeAllPatterns {
			for _, opts := range []Options{{}, {Indexed: true}, {Roles: map[string]bool{"tool": true, "assistant": true}}} {
				t.Setenv(DecodeAllEnv, "")
				fast := grepAll(t, f, pt.p, pt.fixed, pt.fold, opts)
				t.Setenv(DecodeAllEnv, "1")
				every := grepAll(t, f, pt.p, pt.fixed, pt.fold, opts)
				if !reflect.DeepEqual(fast, every) {
					t.Errorf("%s %q %+v: %d hits, %d with every line decoded\n%v\n%v", f, pt.p, opts, len(fast), len(every), hitKeys(fast), hitKeys(every))
				}
				total += len(every)
			}
		}
	}
	if total == 0 {
		t.Fatal("no hits at all")
	}
}

// escapeCompact writes "compact" as "\u0063ompact" in line n (1-based) of content: the same
// record to the transcript readers, but no longer one that a search of its bytes for "compact"
// finds.
func escapeCompact(t *testing.T, content string, n int) string {
	lines := strings.SplitAfter(content, "\n")
	if !strings.Contains(lines[n-1], "compact") {
		t.Fatalf("line %d holds no %q", n, "compact")
	}
	lines[n-1] = strings.ReplaceAll(lines[n-1], "compact", `\u0063ompact`)
	return strings.Join(lines, "")
}

// TestDecodeAllReadsEveryLine: with DecodeAllEnv set, lines that no byte-level probe picks are
// decoded too. A ctxc marker written with escapes still has the copies of its tail left out of
// the history, and a Claude Code compaction written so still covers the lines it summarized, as
// when they are written plainly.
func TestDecodeAllReadsEveryLine(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(DecodeAllEnv, "1")

	// A ctxc file compacted in place: its last message ("Done.") is copied after the marker.
	plain := filepath.Join(dir, "ctxc.jsonl")
	os.WriteFile(plain, []byte(testsessions.OpenAI(30)), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(plain, old, old)
	o := compact.Options{Threshold: 2000, Target: 300, Idle: compact.DefaultIdle, Now: testNow, Zones: compact.ZoneOptions{KeepTail: 6}}
	if out, err := compact.File(context.Background(), plain, o); err != nil || out.Status != compact.StatusCompacted {
		t.Fatalf("compact: %+v %v", out, err)
	}
	b, _ := os.ReadFile(plain)
	marker := 1 + strings.Count(string(b[:strings.Index(string(b), `{"compact"`)]), "\n")
	escaped := filepath.Join(dir, "ctxc-escaped.jsonl")
	os.WriteFile(escaped, []byte(escapeCompact(t, string(b), marker)), 0o644)
	want := lines(grepAll(t, plain, "Done.", true, false, Options{}))
	if len(want) != 1 {
		t.Fatalf("the tail copy was searched: %v", want)
	}
	if got := lines(grepAll(t, escaped, "Done.", true, false, Options{})); !reflect.DeepEqual(got, want) {
		t.Errorf("a marker written with escapes: hits at lines %v, want %v", got, want)
	}

	// A Claude Code compaction: the lines before it are covered by it.
	fixture := filepath.Join("..", "..", "testdata", "fixtures", "claude-compact-boundary.jsonl")
	fb, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	boundary := 1 + strings.Count(string(fb[:strings.Index(string(fb), `"compact_boundary"`)]), "\n")
	claude := filepath.Join(dir, "claude-escaped.jsonl")
	os.WriteFile(claude, []byte(escapeCompact(t, string(fb), boundary)), 0o644)
	wantCov := covered(grepAll(t, fixture, ".", false, false, Options{Indexed: true}))
	if !strings.Contains(strings.Join(wantCov, " "), fmt.Sprintf("covered by %d", boundary)) {
		t.Fatalf("no line covered in %s: %v", fixture, wantCov)
	}
	if got := covered(grepAll(t, claude, ".", false, false, Options{Indexed: true})); !reflect.DeepEqual(got, wantCov) {
		t.Errorf("a compaction written with escapes:\n%v\nwant\n%v", got, wantCov)
	}
}

func lines(hs []Hit) []int {
	var out []int
	for _, h := range hs {
		out = append(out, h.Line)
	}
	return out
}

func covered(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%d %s #%d covered by %d", h.Line, h.Role, h.Index, h.CoveredBy))
	}
	return out
}

// TestDecodeAllEnv: the values that turn the fast paths off.
func TestDecodeAllEnv(t *testing.T) {
	for v, on := range map[string]bool{"": false, "0": false, "false": false, "no": false, "1": true, "true": true, "TRUE": true} {
		t.Setenv(DecodeAllEnv, v)
		if decodeAll() != on {
			t.Errorf("%s=%q: decodeAll %v", DecodeAllEnv, v, !on)
		}
	}
}

// hitKeys describes hits for comparisons: file, line, role, message, covering compaction,
// snippet.
func hitKeys(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%d %s #%d cov=%d span=%v %q", filepath.Base(h.Path), h.Line, h.Role, h.Index, h.CoveredBy, h.Span, h.Snippet.Text))
	}
	return out
}

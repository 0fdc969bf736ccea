package grep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// sessions returns a session of each format whose tool results are runs of "x x x".
func sessions(t *testing.T) map[string]string {
	t.Helper()
	out, err := testsessions.LongTools(filepath.Join("..", "..", "testdata", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// needle is written with a JSON escape (\u003c for '<', as Go writes it), so a search of raw
// bytes would miss it.
const (
	needleRaw = `quokka\u003czebra 4711 `
	needle    = "quokka<zebra 4711"
)

// plant puts the needle at the start of the first tool-result text at or after the middle line
// and returns the content and that line.
func plant(t *testing.T, content string) (string, int) {
	lines := strings.SplitAfter(content, "\n")
	for i := len(lines) / 3; i < len(lines); i++ {
		if k := strings.Index(lines[i], `":"x x`); k >= 0 {
			lines[i] = lines[i][:k+3] + needleRaw + lines[i][k+3:]
			return strings.Join(lines, ""), i + 1
		}
	}
	t.Fatal("no tool result to plant the needle in")
	return "", 0
}

func grepAll(t *testing.T, path, pattern string, fixed, fold bool, opts Options) []Hit {
	t.Helper()
	p, err := Compile(pattern, fixed, fold)
	if err != nil {
		t.Fatal(err)
	}
	var hits []Hit
	if err := File(path, p, opts, func(h Hit) error { hits = append(hits, h); return nil }); err != nil {
		t.Fatal(err)
	}
	return hits
}

func lastCompaction(t *testing.T, path string, f transcript.Format) (int, transcript.Record) {
	t.Helper()
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rec, ok := transcript.DecodeRecord(f, []byte(lines[i]), i+1); ok && rec.Compaction {
			return i + 1, rec
		}
	}
	t.Fatal("no compaction record")
	return 0, transcript.Record{}
}

// TestGrepFindsSummarizedSpan: after a compaction of each format, the needle is only in the
// summarized span (not in the effective context), and grep finds it at its file line, with the
// compaction that covered it.
func TestGrepFindsSummarizedSpan(t *testing.T) {
	for name, content := range sessions(t) {
		t.Run(name, func(t *testing.T) {
			planted, line := plant(t, content)
			p := filepath.Join(t.TempDir(), name+".jsonl")
			if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(p, old, old)
			o := compact.Options{Threshold: 2000, Target: 300, Idle: compact.DefaultIdle, Now: testNow, Zones: compact.ZoneOptions{KeepTail: 6}}
			out, err := compact.File(context.Background(), p, o)
			if err != nil || out.Status != compact.StatusCompacted {
				t.Fatalf("compact: %+v %v", out, err)
			}
			f, _ := transcript.Detect(strings.NewReader(planted), p, transcript.Options{})
			cl, rec := lastCompaction(t, p, f)
			if rec.Meta == nil || rec.Meta.Source.FromLine > line || rec.Meta.Source.ToLine < line {
				t.Fatalf("line %d not in the summarized span %+v", line, rec.Meta)
			}
			_, msgs, err := transcript.LoadFile(p, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range msgs {
				for _, b := range m.Blocks {
					if strings.Contains(b.Text, needle) && !m.Summary {
						t.Fatalf("the needle is still in the context at line %d", m.Line)
					}
				}
			}
			for _, mode := range []struct {
				name string
				opts Options
			}{{"prefiltered", Options{}}, {"indexed", Options{Indexed: true}}} {
				hits := grepAll(t, p, needle, true, false, mode.opts)
				var at []int
				for _, h := range hits {
					if !h.Summary {
						at = append(at, h.Line)
					}
				}
				if !reflect.DeepEqual(at, []int{line}) {
					t.Fatalf("%s: hits at lines %v, want [%d] (%+v)", mode.name, at, line, hits)
				}
				h := hits[0]
				if h.Role != "tool" || !strings.Contains(h.Snippet.Text, needle) {
					t.Errorf("%s: hit %+v", mode.name, h)
				}
				if mode.opts.Indexed && (h.CoveredBy != cl || h.Span == nil || h.Span[0] != rec.Meta.Source.FromLine || h.Index < 0) {
					t.Errorf("indexed: covered by %d span %v index %d, want %d %d-%d", h.CoveredBy, h.Span, h.Index, cl, rec.Meta.Source.FromLine, rec.Meta.Source.ToLine)
				}
			}
			// Case-insensitive, as a regexp, and only the effective context.
			if hits := grepAll(t, p, `QUOKKA<zebra\s+\d+`, false, true, Options{}); len(hits) == 0 || hits[0].Line != line {
				t.Errorf("-i regexp: %+v", hits)
			}
			for _, h := range grepAll(t, p, needle, true, false, Options{Context: true}) {
				if !h.Summary {
					t.Errorf("--context found a summarized message: %+v", h)
				}
			}
		})
	}
}

// TestPrefilterAgreesWithFullDecode: the prefiltered search finds the same messages as decoding
// every line, for literals, regexps, escapes and case folding, on the fixtures and the samples.
func TestPrefilterAgreesWithFullDecode(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "samples", "*", "*.jsonl"))
	files = append(files, samples...)
	patterns := []struct {
		p           string
		fixed, fold bool
	}{
		{"the", false, false}, {"main.go", true, false}, {"ERROR", false, true}, {`fo[or]\w+`, false, false},
		{"tool_use", true, false}, {`"`, true, false}, {"ls", true, false}, {"Summary", false, true},
		{`/w`, true, false}, {"compact", false, true}, {"café|naïve", false, false},
		{"command ls", true, false}, {"command: ls", true, false}, {`Bash\s+command`, false, false}, {`path\s+\S+`, false, false},
	}
	total := 0
	for _, f := range files {
		for _, pt := range patterns {
			key := func(hs []Hit) []string {
				var out []string
				for _, h := range hs {
					out = append(out, fmt.Sprintf("%d %s %s", h.Line, h.Role, h.Snippet.Text))
				}
				return out
			}
			fast := key(grepAll(t, f, pt.p, pt.fixed, pt.fold, Options{}))
			full := key(grepAll(t, f, pt.p, pt.fixed, pt.fold, Options{Indexed: true}))
			if !reflect.DeepEqual(fast, full) {
				t.Errorf("%s %q: prefiltered %d hits, full %d\n%v\n%v", f, pt.p, len(fast), len(full), fast, full)
			}
			total += len(full)
		}
	}
	if total == 0 {
		t.Fatal("no hits at all")
	}
}

func TestPrefilterEscapes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	// Characters that writers escape ('<', '&', '/' as "\/"), and a BOM + CRLF.
	content := "\ufeff" + `{"role":"user","content":"plain"}` + "\r\n" +
		`{"role":"assistant","content":"quokka \u003cb\u0026c\u003e at src\/main.go"}` + "\r\n" +
		`{"role":"user","content":"tab\there \"quoted\" QuOkKa"}` + "\n" +
		// A character of the literal written as a \u00XX escape, which JSON allows.
		`{"role":"user","content":"esc \u0071uokka here"}` + "\n" +
		`{"role":"user","content":"\u0051UOKK\u0041 upper, \\u0071uokka not one"}` + "\n"
	os.WriteFile(p, []byte(content), 0o644)
	for _, c := range []struct {
		p     string
		fold  bool
		lines []int
	}{{"quokka", false, []int{2, 4}}, {"quokka", true, []int{2, 3, 4, 5}}, {"src/main.go", false, []int{2}}, {"<b&c>", false, []int{2}}, {"plain", false, []int{1}}, {"tab\there", false, []int{3}}} {
		var got []int
		for _, h := range grepAll(t, p, c.p, true, c.fold, Options{}) {
			got = append(got, h.Line)
		}
		if !reflect.DeepEqual(got, c.lines) {
			t.Errorf("%q fold=%v: lines %v, want %v", c.p, c.fold, got, c.lines)
		}
	}
}

func TestGrepAroundAndRoles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(testsessions.OpenAI(3)), 0o644)
	hits := grepAll(t, p, "Step 1", true, false, Options{Around: 1})
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%d:%s:%v", h.Line, h.Role, h.Match))
	}
	want := []string{"4:tool:false", "5:assistant:true", "6:tool:false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("-C 1: %v, want %v", got, want)
	}
	if hits := grepAll(t, p, "Step", true, false, Options{Roles: map[string]bool{"user": true}}); len(hits) != 0 {
		t.Errorf("--role user found %+v", hits)
	}
	if hits := grepAll(t, p, "pkg/parse/f2", true, false, Options{Roles: map[string]bool{"assistant": true}}); len(hits) != 1 || hits[0].Line != 7 {
		t.Errorf("tool-call arguments: %+v", hits)
	}
}

// TestChunkedReaderAgrees: the chunked reader (used where files cannot be mapped) finds what the
// mapped search finds, with a buffer small enough that lines cross chunks and outgrow it.
func TestChunkedReaderAgrees(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	p, _ := Compile("the", true, false)
	for _, f := range files {
		var mapped, chunked []string
		if err := File(f, p, Options{}, func(h Hit) error {
			mapped = append(mapped, fmt.Sprintf("%d %s", h.Line, h.Snippet.Text))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		fh, _ := os.Open(f)
		info, _ := fh.Stat()
		format, _ := transcript.Detect(fh, f, transcript.Options{})
		if format == transcript.FormatUnknown {
			format = transcript.FormatOpenAI
		}
		fh.Seek(0, 0)
		g := &grepper{path: f, p: p, format: format, chunk: 256, emit: func(h Hit) error {
			chunked = append(chunked, fmt.Sprintf("%d %s", h.Line, h.Snippet.Text))
			return nil
		}}
		if err := g.fast(io.NewSectionReader(fh, 0, info.Size()), Range{Line: 1}, true); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		if !reflect.DeepEqual(mapped, chunked) {
			t.Errorf("%s: mapped %d hits, chunked %d", f, len(mapped), len(chunked))
		}
	}
}

// TestCoveredByNativeCompactions: with the agents' own compactions (no ctxc provenance), a line
// of the effective context is not reported as summarized by the last compaction, and a
// conversation line before the last compaction that is not in the context is reported covered.
func TestCoveredByNativeCompactions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "samples", "*", "*.jsonl"))
	checked := 0
	for _, f := range append(files, samples...) {
		if strings.Contains(f, "bom-crlf") {
			continue
		}
		_, msgs, err := transcript.LoadFile(f, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		inContext := map[int]bool{}
		for _, m := range msgs {
			for _, s := range m.Sources() {
				if s.Item == 0 {
					inContext[int(s.Line)] = true
				}
			}
		}
		ff, _ := os.Open(f)
		info, _ := ff.Stat()
		format, _ := transcript.Detect(ff, f, transcript.Options{})
		comps, err := findCompactions(f, ff, info.Size(), format)
		ff.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(comps) == 0 {
			continue
		}
		last := comps[len(comps)-1].line
		native := comps[len(comps)-1].from == 0 // ctxc's own keep the head verbatim in the summary
		checked++
		for _, h := range grepAll(t, f, ".", false, false, Options{Indexed: true}) {
			switch {
			case inContext[h.Line] && h.CoveredBy == last:
				t.Errorf("%s:%d is in the context but reported summarized by the compaction at line %d", f, h.Line, last)
			case native && !inContext[h.Line] && h.Line < last && h.CoveredBy == 0 && !h.Summary:
				t.Errorf("%s:%d (%s) is not in the context, before the compaction at line %d, but reported not covered", f, h.Line, h.Role, last)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file with compactions")
	}
}

// TestSegmentsAgree: a mapped file searched in many small segments (lines and a marker's tail
// copies across segment ends) gives what one segment gives.
func TestSegmentsAgree(t *testing.T) {
	dir := t.TempDir()
	// A ctxc file with a marker whose tail copies are skipped: compacted in place.
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(testsessions.OpenAI(30)), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	if out, err := compact.File(context.Background(), p, compact.Options{Threshold: 2000, Target: 300, Idle: compact.DefaultIdle, Now: testNow, Zones: compact.ZoneOptions{KeepTail: 6}}); err != nil || out.Status != compact.StatusCompacted {
		t.Fatalf("compact: %+v %v", out, err)
	}
	if b, _ := os.ReadFile(p); strings.Count(string(b), `"Done."`) != 2 {
		t.Fatalf("want the last line and its tail copy, found %d", strings.Count(string(b), `"Done."`))
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	for _, f := range append(files, p) {
		for _, pat := range []string{"Step", "the", "x x", "Done."} {
			pt, _ := Compile(pat, true, false)
			run := func(seg int) []string {
				var out []string
				fh, _ := os.Open(f)
				defer fh.Close()
				info, _ := fh.Stat()
				format, _ := transcript.Detect(fh, f, transcript.Options{})
				if format == transcript.FormatUnknown {
					format = transcript.FormatOpenAI
				}
				data, release := mapFile(fh, info.Size())
				defer release()
				g := &grepper{path: f, p: pt, format: format, seg: seg, emit: func(h Hit) error {
					out = append(out, fmt.Sprintf("%d %s", h.Line, h.Role))
					return nil
				}}
				if err := g.mapped(data, []Range{{To: int64(len(data)), Line: 1}}); err != nil {
					t.Fatal(err)
				}
				return out
			}
			one, many := run(0), run(300)
			if f == p && pat == "Done." && len(one) != 1 {
				t.Errorf("the tail copy was searched again: %v", one)
			}
			if !reflect.DeepEqual(one, many) {
				t.Errorf("%s %q: one segment %v, 300-byte segments %v", f, pat, one, many)
			}
		}
	}
}

// TestEscapeNearTheEndOfAFile: the prefilter's candidate is an escape of one of the literal's
// characters closer to the end of the file than the literal is long; reading it as the literal
// must not run past the end.
func TestEscapeNearTheEndOfAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"a \u0070"}}`
	os.WriteFile(p, []byte(line), 0o644)
	pat, _ := Compile("prefix of this conversation", true, false)
	if err := File(p, pat, Options{}, func(h Hit) error { t.Errorf("hit %+v", h); return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestMayMatchOutside: a literal that meets a text the reader adds (inside it or across its
// edge) makes the file read with every line decoded; one that does not, does not.
func TestMayMatchOutside(t *testing.T) {
	cases := []struct {
		pattern string
		fold    bool
		format  transcript.Format
		want    bool
	}{
		{"following is a summary", false, transcript.FormatPi, true},
		{"THE FOLLOWING", true, transcript.FormatPi, true},
		{"THE FOLLOWING", false, transcript.FormatPi, false},
		{"quokka", false, transcript.FormatPi, false},
		{"following is a summary", false, transcript.FormatClaude, false},
		{"summarized the conversation", false, transcript.FormatDroid, true},
		{"Here were the user messages", false, transcript.FormatCopilot, true},
	}
	for _, c := range cases {
		p, err := Compile(c.pattern, true, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayMatchOutside(c.format); got != c.want {
			t.Errorf("%q fold %v in %s: %v, want %v", c.pattern, c.fold, c.format, got, c.want)
		}
	}
	both := func(t string) transcript.Wrapper { return transcript.Wrapper{Text: t, Before: true, After: true} }
	for _, c := range []struct {
		lit  string
		w    transcript.Wrapper
		want bool
	}{{"abc", both("xabcx"), true}, {"zzab", both("abcd"), true}, {"cdzz", both("abcd"), true}, {"zz", both("abcd"), false},
		{"bd", both("abcd"), false}, {"zzab", transcript.Wrapper{Text: "abcd", After: true}, false},
		{"cdzz", transcript.Wrapper{Text: "abcd", Before: true}, false}, {"ECONNRESETQUOKKA", transcript.Wrapper{Text: "A previous", After: true}, false}} {
		if got := meets(c.lit, c.w); got != c.want {
			t.Errorf("meets(%q, %+v) = %v", c.lit, c.w, got)
		}
	}
}

package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const fixtures = "../../testdata/fixtures"

// generated is the time every test report says it was made.
var generated = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// build makes the page of the given sessions as ctxc report does: one session with its
// transcript, several with bounded charts.
func build(t *testing.T, paths ...string) (*Report, string) {
	t.Helper()
	o := Options{Prices: usage.Shipped(), Top: 10}
	if len(paths) == 1 {
		o.Transcript = true
	} else {
		o.MaxPoints = 160
	}
	var ss []*Session
	for _, p := range paths {
		s, err := Analyze(context.Background(), p, o)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ss = append(ss, s)
	}
	r := New(ss, nil, o.Prices, generated)
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return r, b.String()
}

func fixture(name string) string { return filepath.Join(fixtures, name) }

var tagRE = regexp.MustCompile(`<(/?)([a-zA-Z0-9]+)([^>]*)>`)
var attrRE = regexp.MustCompile(`\b(class|id)="([^"]*)"`)

// skeleton is the page's elements without their text: one tag a line, indented by depth, with
// its class and id.
func skeleton(page string) string {
	var b strings.Builder
	depth := 0
	void := map[string]bool{"meta": true, "br": true, "img": true, "link": true, "input": true, "hr": true}
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		closing, tag, attrs := m[1] == "/", strings.ToLower(m[2]), m[3]
		if closing {
			depth--
			continue
		}
		b.WriteString(strings.Repeat(" ", max(depth, 0)) + tag)
		for _, a := range attrRE.FindAllStringSubmatch(attrs, -1) {
			b.WriteString(" " + a[1] + "=" + a[2])
		}
		b.WriteByte('\n')
		if !void[tag] && !strings.HasSuffix(attrs, "/") {
			depth++
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the page's structure; go test ./internal/report -update rewrites it after a check of the diff:\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n- " + w + "\n+ " + g
		}
	}
	return ""
}

func itoa(n int) string { return fmt.Sprint(n) }

// selfContained fails on any element or attribute that would fetch or run something: scripts,
// links, frames, images, sources, links off the page, and urls or imports in the style sheet.
func selfContained(t *testing.T, page string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		tag, attrs := strings.ToLower(m[2]), strings.ToLower(m[3])
		switch tag {
		case "script", "link", "iframe", "img", "image", "object", "embed", "video", "audio", "source", "use":
			t.Errorf("the page holds a <%s> element", tag)
		}
		if strings.Contains(attrs, "src=") || strings.Contains(attrs, " on") {
			t.Errorf("the page holds an element <%s%s>", tag, attrs)
		}
		if i := strings.Index(attrs, "href=\""); i >= 0 && !strings.HasPrefix(attrs[i+6:], "#") {
			t.Errorf("the page links off itself: <%s%s>", tag, attrs)
		}
	}
	style := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
	for _, bad := range []string{"url(", "@import", "http"} {
		if strings.Contains(style, bad) {
			t.Errorf("the style sheet holds %q", bad)
		}
	}
}

func count(page, s string) int { return strings.Count(page, s) }

func TestSingleSessionPage(t *testing.T) {
	path := fixture("claude-2.1.330-manual-compact-hook.jsonl")
	r, page := build(t, path)
	s := r.Sessions[0]
	selfContained(t, page)
	golden(t, "single.golden", skeleton(page))
	if s.Turns == 0 || count(page, `<circle class="turn`) != s.Turns {
		t.Errorf("%d points for %d turns", count(page, `<circle class="turn`), s.Turns)
	}
	if len(s.Compactions) != 1 || count(page, `<line class="compaction"`) != 1 {
		t.Fatalf("compactions %d, marks %d", len(s.Compactions), count(page, `<line class="compaction"`))
	}
	// The agent's own compaction lost facts: each is on the page, verbatim (escaped as HTML).
	cs, err := audit.File(context.Background(), path, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs[0].Lost) == 0 {
		t.Fatal("the fixture's compaction lost nothing")
	}
	for _, l := range cs[0].Lost[:min(len(cs[0].Lost), maxLost)] {
		if !strings.Contains(page, html.EscapeString(l.Text)) {
			t.Errorf("lost fact not on the page: %q", l.Text)
		}
	}
	if !strings.Contains(page, `class="boundary"`) || !strings.Contains(page, "claude --resume ") {
		t.Error("no compaction boundary in the transcript, or no resume command")
	}
}

func TestArchivePage(t *testing.T) {
	names := []string{"claude-2.1.330-manual-compact-hook.jsonl", "pi-v1-two-compactions.jsonl", "codex-replacement-history.jsonl",
		"openai-tools.jsonl", "claude-long-tools.jsonl", "gemini-compressed.jsonl"}
	var paths []string
	for _, n := range names {
		paths = append(paths, fixture(n))
	}
	r, page := build(t, paths...)
	selfContained(t, page)
	golden(t, "archive.golden", skeleton(page))
	marks := 0
	for _, s := range r.Sessions {
		marks += len(s.Compactions)
		if len(s.Entries) != 0 {
			t.Errorf("%s: an archive's page holds no transcript", s.Path)
		}
	}
	if marks == 0 || count(page, `<line class="compaction"`) != marks {
		t.Errorf("%d compactions, %d marks", marks, count(page, `<line class="compaction"`))
	}
	if count(page, `<details class="session"`) != len(names) || count(page, `<svg class="chart"`) != len(names) {
		t.Errorf("sessions %d, charts %d, want %d", count(page, `<details class="session"`), count(page, `<svg class="chart"`), len(names))
	}
	for _, want := range []string{`id="days"`, `id="agents"`, `id="projects"`, `id="models"`, `id="nearest"`, `id="lossiest"`} {
		if !strings.Contains(page, want) {
			t.Errorf("no section %s", want)
		}
	}
}

// TestHostileText: what a session says is text on the page, never markup.
func TestHostileText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evil.jsonl")
	lines := `{"role":"user","content":"<script>alert(1)</script> \u0000 </pre><img src=x onerror=alert(2)>"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"<b>x</b>","arguments":"{\"q\":\"<svg onload=alert(3)>\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":"` + strings.Repeat("é", 3000) + `\"><script>"}
{"role":"assistant","content":"done"}
`
	if err := os.WriteFile(path, append([]byte(lines), 0xff, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_, page := build(t, path)
	selfContained(t, page)
	for _, bad := range []string{"<img", "<b>x", "<svg onload"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q as markup", bad)
		}
	}
}

func TestDownsampleKeepsPeaks(t *testing.T) {
	var ps []Point
	for i := range 1000 {
		ps = append(ps, Point{Turn: i, Tokens: int64(i % 100)})
	}
	ps[555].Tokens = 10_000
	got := downsample(ps, 100)
	if len(got) != 100 {
		t.Fatalf("%d points", len(got))
	}
	found := false
	for k, p := range got {
		found = found || p.Turn == 555
		if k > 0 && p.Turn <= got[k-1].Turn {
			t.Fatalf("turns out of order at %d", k)
		}
	}
	if !found {
		t.Error("the peak was dropped")
	}
	if len(downsample(ps[:50], 100)) != 50 || len(downsample(ps, 0)) != 1000 {
		t.Error("a short or unbounded chart was cut")
	}
}

func TestWindowChoice(t *testing.T) {
	p := usage.Shipped()
	for _, tc := range []struct {
		name    string
		s       Session
		o       Options
		want    int
		wantSrc string
	}{
		{"the flag wins", Session{Model: "claude-opus-4-7", Stats: &transcript.Stats{}}, Options{Window: 1000, Prices: p}, 1000, "--window"},
		{"what the agent recorded", Session{Model: "gpt-5-codex", Stats: &transcript.Stats{Usage: &transcript.RecordedUsage{ContextWindow: 272000}}}, Options{Prices: p}, 272000, "recorded by the agent"},
		{"the model's", Session{Model: "claude-opus-4-7", Stats: &transcript.Stats{}}, Options{Prices: p}, 200000, "claude-opus-4-7 in the price table"},
		{"unknown", Session{Model: "fable", Stats: &transcript.Stats{}}, Options{Prices: p}, 0, ""},
	} {
		tc.s.window(tc.o)
		if tc.s.Window != tc.want || tc.s.WindowFrom != tc.wantSrc {
			t.Errorf("%s: %d (%s), want %d (%s)", tc.name, tc.s.Window, tc.s.WindowFrom, tc.want, tc.wantSrc)
		}
	}
}

func TestShortCounts(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1k", 12_345: "12k", 1_000_000: "1M", 1_250_000: "1.2M", 4_080_806_982: "4.1B"} {
		if got := short(n); got != want {
			t.Errorf("short(%d) = %q, want %q", n, got, want)
		}
	}
}

package report

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ctxc/ctxc/internal/audit"
)

// chromium finds the browser the browser tests drive: $CTXC_CHROMIUM, else chromium on PATH.
func chromium(t *testing.T) string {
	if p := os.Getenv("CTXC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium: apt-get install chromium (CI installs it)")
	return ""
}

// artifacts is where the browser tests leave their screenshots and pages, to be looked at:
// $CTXC_TEST_ARTIFACTS, else a folder under the system's temporary folder.
func artifacts(t *testing.T) string {
	dir := os.Getenv("CTXC_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "ctxc-test-artifacts")
	}
	dir = filepath.Join(dir, "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium that reaches no network of its own accord.
func browser(t *testing.T) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 1600),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// loaded is what the browser saw of one page.
type loaded struct {
	errors   []string // console errors, exceptions, log entries of level error
	requests []string // every request but the page's own file
	text     string   // the page's text
	points   int      // turn points drawn
	turns    int      // turns the charts say they hold
	marks    int      // compaction marks drawn
	charts   int
	paint    string // first contentful paint (else the load's end) after the navigation's start
}

// open loads a page file in a new tab, watching its console and its requests, and saves a
// screenshot of the whole page beside it in the artefacts.
func open(t *testing.T, bctx context.Context, page, shot string) loaded {
	t.Helper()
	ctx := bctx
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got loaded
	var wg sync.WaitGroup
	watch := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	wctx, stop := context.WithCancel(ctx)
	console, exceptions := chromedp.Events(wctx, runtime.ConsoleAPICalled), chromedp.Events(wctx, runtime.ExceptionThrown)
	logs, requests := chromedp.Events(wctx, log.EntryAdded), chromedp.Events(wctx, network.RequestWillBeSent)
	watch(func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				mu.Lock()
				got.errors = append(got.errors, fmt.Sprintf("console.%s %v", ev.Type, ev.Args))
				mu.Unlock()
			}
		}
	})
	watch(func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			mu.Lock()
			got.errors = append(got.errors, "exception: "+ev.ExceptionDetails.Text)
			mu.Unlock()
		}
	})
	watch(func() {
		for ev, err := range logs {
			if err != nil {
				return
			}
			if ev.Entry.Level == log.EntryLevelError {
				mu.Lock()
				got.errors = append(got.errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
				mu.Unlock()
			}
		}
	})
	self := "file://" + page
	watch(func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			if u := ev.Request.URL; u != self && u != "about:blank" {
				mu.Lock()
				got.requests = append(got.requests, u)
				mu.Unlock()
			}
		}
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(self)); err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	eval := func(expr string, into any) {
		var err error
		switch p := into.(type) {
		case *int:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[int](expr))
		case *float64:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[float64](expr))
		case *string:
			*p, err = chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", page, expr, err)
		}
	}
	var res loaded
	eval(`document.querySelectorAll('svg.chart circle.turn').length`, &res.points)
	eval(`[...document.querySelectorAll('svg.chart')].reduce((n, s) => n + Number(s.dataset.turns), 0)`, &res.turns)
	eval(`document.querySelectorAll('svg.chart line.compaction').length`, &res.marks)
	eval(`document.querySelectorAll('svg.chart').length`, &res.charts)
	eval(`document.body.textContent`, &res.text)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("%s: screenshot: %v", page, err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	// After the screenshot, which waits for a frame: the paint entry is there.
	eval(`(() => {
		const p = performance.getEntriesByName('first-contentful-paint')[0];
		if (p) return 'first contentful paint ' + Math.round(p.startTime) + ' ms';
		const n = performance.getEntriesByType('navigation')[0];
		return 'load end ' + Math.round(n.loadEventEnd) + ' ms (no paint entry)';
	})()`, &res.paint)
	time.Sleep(100 * time.Millisecond) // events of the load still in flight
	stop()
	wg.Wait()
	mu.Lock()
	res.errors, res.requests = got.errors, got.requests
	mu.Unlock()
	return res
}

// writePage writes a report of the paths into the artefacts and returns the file.
func writePage(t *testing.T, name string, paths ...string) (*Report, string) {
	t.Helper()
	r, page := build(t, paths...)
	path := filepath.Join(artifacts(t), name+".html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	return r, path
}

func checkLoaded(t *testing.T, name string, r *Report, got loaded) {
	t.Helper()
	if len(got.errors) > 0 {
		t.Errorf("%s: errors in the browser: %v", name, got.errors)
	}
	if len(got.requests) > 0 {
		t.Errorf("%s: requests from the page: %v", name, got.requests)
	}
	marks, turns := 0, 0
	for _, s := range r.Sessions {
		marks += len(s.Compactions)
		turns += s.Turns
	}
	if got.charts != len(r.Sessions) || got.marks != marks || got.turns != turns {
		t.Errorf("%s: %d charts, %d marks, %d turns; want %d, %d, %d", name, got.charts, got.marks, got.turns, len(r.Sessions), marks, turns)
	}
	if r.Single() && got.points != turns {
		t.Errorf("%s: %d points for %d turns", name, got.points, turns)
	}
	t.Logf("%s: %d sessions, %d turns, %d compactions, %s", name, len(r.Sessions), turns, marks, got.paint)
}

// TestBrowserSessionPages opens the page of each shared sample and of a real Claude Code
// compaction in Chromium: no error, no request, a point per turn, a mark per compaction, the
// compaction's lost facts on the page.
func TestBrowserSessionPages(t *testing.T) {
	bctx := browser(t)
	dir := artifacts(t)
	real := fixture("claude-2.1.330-manual-compact-hook.jsonl")
	paths := []string{real, fixture("pi-v1-two-compactions.jsonl"), fixture("codex-replacement-history.jsonl")}
	samples, _ := filepath.Glob("../../../shared/samples/*/*.jsonl")
	paths = append(paths, samples...)
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		r, page := writePage(t, name, p)
		got := open(t, bctx, page, filepath.Join(dir, name+".png"))
		checkLoaded(t, name, r, got)
		if p != real {
			continue
		}
		cs, err := audit.File(context.Background(), real, audit.Options{})
		if err != nil || len(cs) == 0 || len(cs[0].Lost) == 0 {
			t.Fatalf("the real compaction's audit: %v, %d", err, len(cs))
		}
		for _, l := range cs[0].Lost[:min(maxLost, len(cs[0].Lost))] {
			if !strings.Contains(got.text, html.UnescapeString(html.EscapeString(l.Text))) {
				t.Errorf("lost fact not on the page: %q", l.Text)
			}
		}
	}
	if len(samples) == 0 {
		t.Log("no shared samples in ../shared/samples: the fixtures only")
	}
	t.Logf("screenshots in %s", dir)
}

// TestBrowserArchivePage opens the page of a generated archive of 1,000 sessions (every
// fixture with a compaction among them) and of the shared samples.
func TestBrowserArchivePage(t *testing.T) {
	bctx := browser(t)
	dir := artifacts(t)
	paths := generatedArchive(t, 1000)
	start := time.Now()
	r, page := writePage(t, "archive-1000", paths...)
	built := time.Since(start)
	info, _ := os.Stat(page)
	got := open(t, bctx, page, filepath.Join(dir, "archive-1000.png"))
	checkLoaded(t, "archive-1000", r, got)
	t.Logf("archive of %d sessions: built in %v, %d bytes", len(paths), built.Round(time.Millisecond), info.Size())
	if samples, _ := filepath.Glob("../../../shared/samples/*/*.jsonl"); len(samples) > 1 {
		r, page := writePage(t, "samples", samples...)
		checkLoaded(t, "samples", r, open(t, bctx, page, filepath.Join(dir, "samples.png")))
	}
}

// generatedArchive writes n sessions: Claude Code sessions of 5 to 60 turns whose context grows
// with recorded usage, and copies of the fixtures that hold compactions.
func generatedArchive(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	compacted := []string{"claude-2.1.330-manual-compact-hook.jsonl", "pi-v1-two-compactions.jsonl", "codex-replacement-history.jsonl", "claude-compact-boundary.jsonl"}
	var paths []string
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i))
		var data []byte
		if i%50 == 0 {
			b, err := os.ReadFile(fixture(compacted[(i/50)%len(compacted)]))
			if err != nil {
				t.Fatal(err)
			}
			data = b
		} else {
			data = []byte(claudeSession(i, 5+i%56))
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// claudeSession is a Claude Code session of the given turns, on a day of its seed.
func claudeSession(seed, turns int) string {
	var b strings.Builder
	day := time.Date(2026, 3, 1+seed%28, 9, 0, 0, 0, time.UTC)
	models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-7", "claude-haiku-4-5-20251001", "claude-fable-9"}
	model := models[seed%len(models)]
	ctx := 12000
	for k := range turns {
		at := day.Add(time.Duration(k) * time.Minute).Format(time.RFC3339)
		fmt.Fprintf(&b, `{"type":"user","sessionId":"gen-%d","cwd":"/home/dev/project%d","uuid":"u%d-%d","timestamp":"%s","message":{"role":"user","content":"step %d: change file internal/pkg%d/file%d.go"}}`+"\n",
			seed, seed%7, seed, k, at, k, k, k)
		ctx += 800 + (seed*k)%3000
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"gen-%d","cwd":"/home/dev/project%d","uuid":"a%d-%d","requestId":"r%d-%d","timestamp":"%s","message":{"id":"m%d-%d","role":"assistant","model":"%s","content":[{"type":"text","text":"done with step %d"}],"usage":{"input_tokens":3,"output_tokens":%d,"cache_creation_input_tokens":900,"cache_read_input_tokens":%d}}}`+"\n",
			seed, seed%7, seed, k, seed, k, at, seed, k, model, k, 100+k, ctx)
	}
	return b.String()
}

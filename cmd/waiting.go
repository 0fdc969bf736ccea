package cmd

import (
	"fmt"
	"sync"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/schollz/progressbar/v3"
)

// A summarizer that accepts a request and does not answer is not silent: on a terminal a line
// on stderr counts the time waited and the tokens of the reply received (the reply is then
// streamed), and after waitNotice without an answer one line says which
// model at which endpoint has not answered yet, on a terminal or not (a cron run's mail says why
// it took long). The request itself is bounded by --timeout (docs/design.md §8).

// waitNotice is how long a summarizer may take before ctxc says it has not answered yet.
const waitNotice = 30 * time.Second

// waitTick is how often the time waited is shown.
const waitTick = time.Second

// waitWatcher reports the requests in flight to a summarizer.
type waitWatcher struct {
	ios    *iostreams.IOStreams
	g      *cmdutil.GlobalOptions
	notice time.Duration

	mu      sync.Mutex
	noticed map[llm.Waiting]bool // (with Elapsed and Done zeroed) who was said to be slow
	bar     *progressbar.ProgressBar
}

// watchSummarizer returns c watched by a waitWatcher; notice 0 is waitNotice.
func watchSummarizer(c llm.Client, ios *iostreams.IOStreams, g *cmdutil.GlobalOptions, notice time.Duration) llm.Client {
	if c == nil {
		return nil
	}
	if notice <= 0 {
		notice = waitNotice
	}
	w := &waitWatcher{ios: ios, g: g, notice: notice, noticed: map[llm.Waiting]bool{}}
	return llm.Watch(c, llm.WatchOptions{Interval: min(waitTick, notice), Tick: w.tick, Tokens: w.showsProgress()})
}

// showsProgress reports whether the time waited is drawn: on a terminal, without -q or --json.
func (w *waitWatcher) showsProgress() bool {
	return w.ios.IsStderrTTY() && w.g.Bars()
}

func (w *waitWatcher) tick(ev llm.Waiting) {
	w.mu.Lock()
	defer w.mu.Unlock()
	who := ev
	who.Elapsed, who.Done = 0, false
	if ev.Done {
		w.ended()
		return
	}
	if ev.Elapsed >= w.notice && !w.noticed[who] && !w.g.Quiet {
		w.noticed[who] = true
		w.clearBar()
		fmt.Fprintf(w.ios.ErrOut, "ctxc: %s has not answered yet after %s (waiting up to --timeout)\n",
			describeSummarizer(ev), ev.Elapsed.Round(time.Second))
	}
	if w.showsProgress() {
		if w.bar == nil {
			w.bar = progressbar.NewOptions(-1,
				progressbar.OptionSetWriter(w.ios.ErrOut),
				progressbar.OptionSpinnerType(14),
				// drawn only from tick, under w.mu: the bar's own redrawing goroutine would
				// write stderr beside Clear and beside the command's own lines
				progressbar.OptionSetSpinnerChangeInterval(0),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionSetVisibility(true),
			)
		}
		w.bar.Describe(waitingLine(ev))
		w.bar.Add(1)
	}
}

// ended removes the line of the time waited once a request ends.
func (w *waitWatcher) ended() {
	if w.bar != nil {
		w.bar.Finish()
		w.bar = nil
	}
}

func (w *waitWatcher) clearBar() {
	if w.bar != nil {
		w.bar.Clear()
	}
}

// waitingLine is the line drawn while a request is in flight: who, the time waited, and the
// tokens of the reply received (its reply is streamed on a terminal).
func waitingLine(ev llm.Waiting) string {
	s := fmt.Sprintf("waiting for %s: %s", describeSummarizer(ev), ev.Elapsed.Round(time.Second))
	if ev.Tokens > 0 {
		s += fmt.Sprintf(", %d tokens received", ev.Tokens)
	}
	return s
}

// describeSummarizer names a summarizer for people: provider, model and endpoint.
func describeSummarizer(ev llm.Waiting) string {
	s := ev.Provider + " model " + ev.Model
	if ev.Endpoint != "" {
		s += " at " + ev.Endpoint
	}
	return s
}

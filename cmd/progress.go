package cmd

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a bar on stderr, shown only when stderr is a terminal and neither --json nor -q
// is given: cron mail and CI logs get no carriage-return frames.
type progress struct {
	bar *progressbar.ProgressBar
}

func newProgress(io *IOStreams, g *GlobalOptions, total int) *progress {
	if !io.IsStderrTTY() || g.JSON || g.Quiet || total < 2 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(io.ErrOut),
		progressbar.OptionSetDescription("compacting"),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetVisibility(true),
	)}
}

// describe names what the bar counts.
func (p *progress) describe(what string) {
	if p.bar != nil {
		p.bar.Describe(what)
	}
}

// Add counts one file done.
func (p *progress) Add() {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

// Println prints a line above the bar.
func (p *progress) Println(w io.Writer, s string) {
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(w, s)
	if p.bar != nil {
		p.bar.RenderBlank()
	}
}

// Finish removes the bar.
func (p *progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// byteProgress is a bar of bytes read, shown under the same conditions as progress; its total
// is known only once the work is planned (plan).
type byteProgress struct {
	ios  *IOStreams
	g    *GlobalOptions
	what string
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
}

func newByteProgress(ios *IOStreams, g *GlobalOptions, what string) *byteProgress {
	return &byteProgress{ios: ios, g: g, what: what}
}

// plan makes the bar for total bytes (none when there is little to do or no terminal).
func (p *byteProgress) plan(total int64) {
	if !p.ios.IsStderrTTY() || p.g.JSON || p.g.Quiet || total < 16<<20 {
		return
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.ios.ErrOut),
		progressbar.OptionSetDescription(p.what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetVisibility(true),
	)
}

// add counts bytes done (from any goroutine).
func (p *byteProgress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

func (p *byteProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

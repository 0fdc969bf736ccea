package cmd

import (
	"fmt"
	"io"
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

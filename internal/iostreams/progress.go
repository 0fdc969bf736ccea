package iostreams

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress is a bar on stderr of files done, shown only when stderr is a terminal and show (no
// --json, no -q): cron mail and CI logs get no carriage-return frames.
type Progress struct {
	bar *progressbar.ProgressBar
}

// NewProgress is a bar of total files, drawn when show and stderr is a terminal.
func NewProgress(io *IOStreams, show bool, total int) *Progress {
	if !io.IsStderrTTY() || !show || total < 2 {
		return &Progress{}
	}
	return &Progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(io.ErrOut),
		progressbar.OptionSetDescription("compacting"),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetVisibility(true),
	)}
}

// Describe names what the bar counts.
func (p *Progress) Describe(what string) {
	if p.bar != nil {
		p.bar.Describe(what)
	}
}

// Add counts one file done.
func (p *Progress) Add() {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

// Println prints a line above the bar.
func (p *Progress) Println(w io.Writer, s string) {
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(w, s)
	if p.bar != nil {
		p.bar.RenderBlank()
	}
}

// Finish removes the bar.
func (p *Progress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// ByteProgress is a bar of bytes read, shown under the same conditions as Progress; its total
// is known only once the work is planned (Plan).
type ByteProgress struct {
	ios  *IOStreams
	show bool
	what string
	mu   sync.Mutex
	bar  *progressbar.ProgressBar
}

// NewByteProgress is a bar of bytes named what, drawn when show and stderr is a terminal.
func NewByteProgress(ios *IOStreams, show bool, what string) *ByteProgress {
	return &ByteProgress{ios: ios, show: show, what: what}
}

// Plan makes the bar for total bytes (none when there is little to do or no terminal).
func (p *ByteProgress) Plan(total int64) {
	if !p.ios.IsStderrTTY() || !p.show || total < 16<<20 {
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

// AddBytes counts bytes done (from any goroutine).
func (p *ByteProgress) AddBytes(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

// Finish removes the bar.
func (p *ByteProgress) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

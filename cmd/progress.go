package cmd

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
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

// isLoopback reports whether an endpoint URL (or host:port) is on this machine: text sent there
// does not leave it, so redaction is not needed by default.
func isLoopback(endpoint string) bool {
	host := endpoint
	if strings.Contains(endpoint, "://") {
		u, err := url.Parse(endpoint)
		if err != nil {
			return false
		}
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(endpoint); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

package agentcheck

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
)

// The agent tests skip when the agents are not installed, and `go test ./...` would say nothing
// of it in its summary: each skip is counted (Skip), and a package's TestMain (Counted) prints
// one line with the count when the package's tests end. go test shows a passing package's output
// only with -v, so without -v the line goes to the terminal (/dev/tty) when there is one, beside
// the package's verdict.

var skipped atomic.Int64

// Skip skips t because an agent it needs is not installed, and counts it for Counted's notice.
func Skip(t testing.TB, why string) {
	t.Helper()
	skipped.Add(1)
	t.Skip(why)
}

// Counted returns m whose Run, once m's tests ran, prints how many agent tests were skipped and
// why, if any were: a package's TestMain runs os.Exit(agentcheck.Counted(m).Run()), or hands it
// to testscript.Main.
func Counted(m interface{ Run() int }) interface{ Run() int } { return counted{m} }

type counted struct{ m interface{ Run() int } }

func (c counted) Run() int {
	code := c.m.Run()
	w := io.Writer(os.Stdout)
	if !testing.Verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			defer tty.Close()
			w = tty
		}
	}
	printSkipped(w, skipped.Load())
	return code
}

// printSkipped writes the notice of n skipped agent tests (nothing when none was).
func printSkipped(w io.Writer, n int64) {
	if n == 0 {
		return
	}
	why := "CTXC_AGENTS_BIN or CTXC_MORE_AGENTS_BIN not set"
	if os.Getenv("CTXC_AGENTS_BIN") != "" && os.Getenv("CTXC_MORE_AGENTS_BIN") != "" {
		why = "an agent is missing from CTXC_AGENTS_BIN or CTXC_MORE_AGENTS_BIN"
	}
	fmt.Fprintf(w, "ctxc: %d agent tests skipped: %s; see README (Build and test)\n", n, why)
}

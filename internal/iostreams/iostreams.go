// Package iostreams is the command line's standard streams, which of them are terminals, and
// the progress bars shown on a terminal only.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/term"
)

// IOStreams carries the standard streams and knows which of them are terminals: progress bars
// and tables are for people, JSON Lines and plain lines for pipes, cron and CI.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool

	// walkFailed counts the folders below a command's arguments that could not be read (said
	// on ErrOut when met): the files found elsewhere are done, and the run is partial.
	walkFailed atomic.Int32
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Test returns streams backed by buffers, none of them a terminal.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetTTY overrides terminal detection (tests).
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// WalkFailed says that a folder below the command's arguments could not be read.
func (s *IOStreams) WalkFailed() { s.walkFailed.Add(1) }

// WalksFailed is the number of folders that could not be read.
func (s *IOStreams) WalksFailed() int { return int(s.walkFailed.Load()) }

package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// What SIGINT and SIGTERM do (docs/design.md §9): the first cancels the command's context, and
// the command stops where it is (a compaction undoes its append, a batch reports what it did)
// and exits 130. A command still running InterruptGrace later, or a second signal, exits 130 at
// once: nothing a command blocks on (standard input at a terminal, a summarizer that does not
// answer, a slow disk) keeps a user's Ctrl-C waiting. What an exit at that point can leave
// behind is what a kill leaves, which every write of ctxc is built to survive (§10).

// InterruptGrace is how long an interrupted command has to stop by itself.
const InterruptGrace = 3 * time.Second

var ErrInterrupted = errors.New("interrupted")

// ErrInputInterrupted is what a read of standard input returns once the command is interrupted:
// a context.Canceled that reads as what happened.
var ErrInputInterrupted error = interruptedRead{}

type interruptedRead struct{}

func (interruptedRead) Error() string        { return "interrupted" }
func (interruptedRead) Is(target error) bool { return target == context.Canceled }

// ExitOnInterrupt installs the handling of SIGINT and SIGTERM: cancel at the first, exit (through
// exit, with code 130) after grace or at the second. stop removes it.
func ExitOnInterrupt(cancel context.CancelFunc, grace time.Duration, errOut io.Writer, exit func(int)) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sigs:
		case <-time.After(grace):
		case <-done:
			return
		}
		fmt.Fprintln(errOut, "ctxc: interrupted")
		exit(ExitInterrupted)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
		})
	}
}

// input is standard input as the commands read it. An end of input, once read, is the end for
// every later read: at a terminal, Ctrl-D ends one read only, and a second reader of standard
// input (a list of paths, then a transcript; a format check, then the scan) would otherwise
// wait for a second Ctrl-D. A read waiting for input ends when ctx is cancelled (an interrupt),
// ErrInputInterrupted: a blocked read(2) cannot be called off, so it is made by a goroutine that
// the process leaves behind.
type input struct {
	ctx     context.Context
	r       io.Reader
	err     error       // the end, once reached: io.EOF, a read error or ErrInputInterrupted
	pending []byte      // read and not yet returned
	buf     []byte      // what the reading goroutine reads into, once pending is used up
	ask     chan []byte // a buffer to read into, to the reading goroutine
	got     chan readResult
}

type readResult struct {
	n   int
	err error
}

// inputBuffer is what one read(2) of standard input asks for.
const inputBuffer = 256 << 10

func NewInput(ctx context.Context, r io.Reader) *input {
	return &input{ctx: ctx, r: r}
}

func (in *input) Read(p []byte) (int, error) {
	if len(in.pending) == 0 && in.err == nil {
		in.fill()
	}
	if len(in.pending) > 0 {
		n := copy(p, in.pending)
		in.pending = in.pending[n:]
		return n, nil
	}
	return 0, in.err
}

// fill makes one read of the underlying reader, or stops at ctx's end.
func (in *input) fill() {
	if in.ask == nil {
		in.ask, in.got = make(chan []byte), make(chan readResult, 1)
		go in.reader()
	}
	if in.buf == nil {
		in.buf = make([]byte, inputBuffer)
	}
	buf := in.buf
	select {
	case in.ask <- buf:
	case <-in.ctx.Done():
		in.err = ErrInputInterrupted
		return
	}
	select {
	case r := <-in.got:
		in.pending = buf[:r.n]
		if r.err != nil {
			in.err = r.err
		}
	case <-in.ctx.Done():
		in.err = ErrInputInterrupted
	}
}

// reader reads standard input into the buffers fill hands it, one at a time.
func (in *input) reader() {
	for buf := range in.ask {
		n, err := in.r.Read(buf)
		in.got <- readResult{n, err}
	}
}

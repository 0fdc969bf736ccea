package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// TestInterruptBatch sends SIGINT (and SIGTERM) to a real ctxc process in the middle of a batch
// whose summarizer is slow: it exits 130, reports what was done, and every file is either
// untouched or completely compacted.
func TestInterruptBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin := filepath.Join(t.TempDir(), "ctxc")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var once sync.Once
			arrived := make(chan struct{})
			var n int
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n++
				k := n
				mu.Unlock()
				if k >= 4 {
					once.Do(func() { close(arrived) })
					select { // slow: the signal arrives while this request is in flight
					case <-time.After(5 * time.Second):
					case <-r.Context().Done():
						return
					}
				}
				io.WriteString(w, openAIReply(goodSummary))
			}))
			defer srv.Close()
			dir := t.TempDir()
			originals := map[string][]byte{}
			for i := 0; i < 10; i++ {
				p := writeSession(t, dir, fmt.Sprintf("s%d.jsonl", i), 12)
				originals[p], _ = os.ReadFile(p)
			}
			cmd := exec.Command(bin, "compact", "--provider", "openai", "--model", "fake", "--endpoint", srv.URL+"/v1",
				"--threshold", "2000", "--target", "300", "-j", "2", dir)
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-arrived:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("no slow request; stderr: %s", stderr.String())
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit: %v, want 130; stderr: %s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("no report: %s", stderr.String())
			}
			compacted, untouched := 0, 0
			for p, orig := range originals {
				now, _ := os.ReadFile(p)
				switch {
				case bytes.Equal(now, orig):
					untouched++
				case bytes.HasPrefix(now, orig) && bytes.Count(now[len(orig):], []byte(`{"compact"`)) == 1:
					compacted++
				default:
					t.Errorf("%s: partial or foreign write", p)
				}
				if _, err := os.Stat(p + ".ctxc.lock"); err == nil {
					t.Errorf("%s: lock file left behind", p)
				}
			}
			if untouched == 0 {
				t.Error("every file was processed: the signal came too late to test anything")
			}
			t.Logf("%s: %d compacted, %d untouched; %s", sig, compacted, untouched, strings.TrimSpace(stderr.String()))
		})
	}
}

// TestInterruptWhileReadingStdin: a command blocked reading standard input that never ends (a
// terminal, a pipe kept open) exits 130 as soon as SIGINT or SIGTERM arrives, well before the
// grace after which any interrupted command is ended.
func TestInterruptWhileReadingStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin := filepath.Join(t.TempDir(), "ctxc")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"stats", "-"}, {"load", "-"}, {"grep", "x", "-"}, {"stats", "--from", "-"}} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(strings.Join(args, "_")+"/"+sig.String(), func(t *testing.T) {
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir)
				stdin, err := cmd.StdinPipe() // kept open: the input never ends
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Four times what a pipe holds: once written, ctxc has read most of it, so it is
				// reading standard input (its signal handling in place) when the signal comes.
				line := `{"role":"user","content":"some lines, then nothing more"}` + "\n"
				io.WriteString(stdin, strings.Repeat(line, 4*(64<<10)/len(line)))
				kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // (a ctxc that ignores the signal)
				defer kill.Stop()
				sent := time.Now()
				cmd.Process.Signal(sig)
				err = cmd.Wait()
				waited := time.Since(sent)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != cmdutil.ExitInterrupted {
					t.Fatalf("exit: %v, want 130; stderr: %s", err, stderr.String())
				}
				if waited >= cmdutil.InterruptGrace {
					t.Errorf("exited %s after the signal: only the grace ended it, the read was not called off", waited)
				}
			})
		}
	}
}

// ttyInput reads as a terminal does: what was typed, then an end of input (Ctrl-D) for one read
// only; a later read gets what is typed next.
type ttyInput struct {
	typed []string
	reads int
}

func (r *ttyInput) Read(p []byte) (int, error) {
	r.reads++
	if len(r.typed) == 0 {
		return 0, io.EOF
	}
	s := r.typed[0]
	r.typed = r.typed[1:]
	if s == "" {
		return 0, io.EOF // Ctrl-D
	}
	return copy(p, s), nil
}

// TestStdinEndsAtFirstEOF: one Ctrl-D ends standard input for the whole command, even when it
// reads standard input twice (stats - with nothing typed peeks for a compressed stream, then
// scans; --from - reads a list, then each "-" path): what is typed after the first end is never
// read.
func TestStdinEndsAtFirstEOF(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		typed []string
		want  string
	}{
		{[]string{"stats", "--json", "-"}, []string{"", `{"role":"user","content":"typed after the end"}` + "\n"}, `"lines":0`},
		{[]string{"stats", "--json", "-"}, []string{`{"role":"user","content":"hi"}` + "\n", "", `{"role":"user","content":"typed after the end"}` + "\n"}, `"lines":1`},
		{[]string{"load", "-"}, []string{`{"role":"user","content":"hi"}` + "\n", "", `{"role":"user","content":"typed after the end"}` + "\n"}, `"hi"`},
		{[]string{"grep", "-F", "end", "-"}, []string{`{"role":"user","content":"the end"}` + "\n", "", `{"role":"user","content":"typed after the end"}` + "\n"}, `the end`},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			tty := &ttyInput{typed: tc.typed}
			ios.In = cmdutil.NewInput(context.Background(), tty)
			dir := t.TempDir()
			f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
				if k == "HOME" || k == "XDG_CONFIG_HOME" {
					return dir
				}
				return ""
			}, Now: time.Now}
			code := Run(context.Background(), f, tc.args)
			if code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, errOut)
			}
			if !strings.Contains(out.String(), tc.want) || strings.Contains(out.String(), "typed after the end") {
				t.Errorf("stdout %q: want %s and nothing typed after the end", out, tc.want)
			}
		})
	}
}

// blockedInput is standard input at a terminal where nothing is typed: a read that never returns.
type blockedInput struct{ never chan struct{} }

func (b blockedInput) Read([]byte) (int, error) { <-b.never; return 0, io.EOF }

// TestInputEndsAtInterrupt: a read of standard input waiting for input returns at the
// interrupt, as an interrupt (context.Canceled, said "interrupted"), and so does every read after.
func TestInputEndsAtInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	in := cmdutil.NewInput(ctx, blockedInput{make(chan struct{})})
	done := make(chan error, 1)
	go func() {
		_, err := in.Read(make([]byte, 10))
		done <- err
	}()
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || err.Error() != "interrupted" {
		t.Fatalf("read at the interrupt: %v", err)
	}
	if _, err := in.Read(make([]byte, 10)); !errors.Is(err, context.Canceled) {
		t.Errorf("read after the interrupt: %v", err)
	}
}

// TestInterruptGrace: the first signal cancels the command; a command that has not returned
// after the grace, or a second signal, is ended with 130 and "interrupted" said.
func TestInterruptGrace(t *testing.T) {
	for _, second := range []bool{false, true} {
		t.Run(fmt.Sprintf("second_signal=%v", second), func(t *testing.T) {
			grace := time.Hour // only the second signal can end it
			if !second {
				grace = 50 * time.Millisecond
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var errOut bytes.Buffer
			exited := make(chan int, 1)
			stop := cmdutil.ExitOnInterrupt(cancel, grace, &errOut, func(code int) { exited <- code })
			defer stop()
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the first signal did not cancel the command")
			}
			if second {
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
			}
			select {
			case code := <-exited:
				if code != cmdutil.ExitInterrupted || !strings.Contains(errOut.String(), "interrupted") {
					t.Errorf("exit %d, said %q", code, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a command that did not stop was not ended")
			}
		})
	}
}

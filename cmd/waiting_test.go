package cmd

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

// silentEndpoint accepts every request and never answers it (until the client gives up).
func silentEndpoint(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // (the server notices a client that left only once the body is read)
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestSilentEndpointIsSaid: a summarizer that accepts the request and never answers is named on
// stderr once the notice time passed (30 s; shortened here), with the time waited drawn on a
// terminal; --timeout ends the wait (exit 69) and the file is untouched.
func TestSilentEndpointIsSaid(t *testing.T) {
	for _, tty := range []bool{false, true} {
		name := "pipe"
		if tty {
			name = "terminal"
		}
		t.Run(name, func(t *testing.T) {
			url := silentEndpoint(t)
			dir := t.TempDir()
			p := writeSession(t, dir, "s.jsonl", 12)
			before, _ := os.ReadFile(p)
			ios, _, _, errOut := iostreams.Test()
			ios.SetTTY(false, false, tty)
			f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
				if k == "HOME" || k == "XDG_CONFIG_HOME" {
					return dir
				}
				return ""
			}, Now: time.Now, WaitNotice: 150 * time.Millisecond}
			code := Run(context.Background(), f, []string{"compact", "--provider", "openai", "--model", "fake-model",
				"--endpoint", url, "--timeout", "1s", "--threshold", "2000", "--target", "300", p})
			stderr := errOut.String()
			if code != cmdutil.ExitUnavailable {
				t.Fatalf("exit %d, want %d; stderr: %s", code, cmdutil.ExitUnavailable, stderr)
			}
			if !strings.Contains(stderr, "openai model fake-model at "+url+" has not answered yet") {
				t.Errorf("no notice naming the model and the endpoint: %s", stderr)
			}
			if got := strings.Contains(stderr, "waiting for openai model fake-model"); got != tty {
				t.Errorf("time waited drawn: %v, want %v (only on a terminal): %q", got, tty, stderr)
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) {
				t.Error("the file changed")
			}
		})
	}
}

// TestQuietSilentEndpoint: -q says nothing while waiting; the error at the end is still said.
func TestQuietSilentEndpoint(t *testing.T) {
	url := silentEndpoint(t)
	dir := t.TempDir()
	p := writeSession(t, dir, "s.jsonl", 12)
	ios, _, _, errOut := iostreams.Test()
	ios.SetTTY(false, false, true)
	f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}, Now: time.Now, WaitNotice: 100 * time.Millisecond}
	code := Run(context.Background(), f, []string{"compact", "-q", "--provider", "openai", "--model", "m",
		"--endpoint", url, "--timeout", "500ms", "--threshold", "2000", "--target", "300", p})
	if code != cmdutil.ExitUnavailable {
		t.Fatalf("exit %d; stderr: %s", code, errOut)
	}
	if strings.Contains(errOut.String(), "not answered yet") || strings.Contains(errOut.String(), "waiting for") {
		t.Errorf("-q printed progress: %s", errOut)
	}
}

// TestStreamingSummarizerShowsTokens: on a terminal the reply is asked for streamed and the line
// of the time waited counts the tokens received; through a pipe the request is sent whole, as
// without the line.
func TestStreamingSummarizerShowsTokens(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(map[bool]string{false: "pipe", true: "terminal"}[tty], func(t *testing.T) {
			words := strings.Repeat("word ", 12)
			f := llmtest.NewServer(t, 8192, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Text: llmtest.Strp("## Goal\n- " + words), PieceDelay: 40 * time.Millisecond}
			})
			dir := t.TempDir()
			p := writeSession(t, dir, "s.jsonl", 12)
			ios, _, _, errOut := iostreams.Test()
			ios.SetTTY(false, false, tty)
			fac := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
				if k == "HOME" || k == "XDG_CONFIG_HOME" {
					return dir
				}
				return ""
			}, Now: time.Now, WaitNotice: 100 * time.Millisecond}
			code := Run(context.Background(), fac, []string{"compact", "-o", filepath.Join(dir, "out.jsonl"), "--provider", "openai", "--model", "fake-model",
				"--endpoint", f.URL() + "/v1", "--threshold", "2000", "--target", "300", p})
			stderr := errOut.String()
			if code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			if got := strings.Contains(stderr, "tokens received"); got != tty {
				t.Errorf("tokens received shown: %v, want %v: %q", got, tty, stderr)
			}
			for _, c := range f.Calls() {
				if c.Stream != tty {
					t.Errorf("stream asked %v, want %v", c.Stream, tty)
				}
			}
		})
	}
}

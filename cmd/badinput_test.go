package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// runCLI runs ctxc in-process with the given arguments and returns the exit code and outputs.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runCLIEnv(t, dir, nil, args...)
}

// runCLIEnv is runCLI with environment variables (HOME and XDG_CONFIG_HOME are dir).
func runCLIEnv(t *testing.T, dir string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return dir
		}
		return env[k]
	}, Now: time.Now, Build: cmdutil.BuildInfo{Version: "test"}}
	code := Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// TestBadInput: every kind of bad input gives a clear message naming the path (and the line
// when there is one) and the documented exit code, never a panic or a stack trace.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
		return p
	}
	bigLine := 32 << 20
	if os.Getenv("CTXC_BIG_LINE") == "256" {
		bigLine = 256 << 20
	}
	huge := make([]byte, 0, bigLine+64)
	huge = append(huge, `{"role":"user","content":"`...)
	huge = append(huge, bytes.Repeat([]byte("a"), bigLine)...)
	huge = append(huge, "\"}\n"...)

	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.jsonl")
	os.Symlink(loop, loop)
	noperm := write("noperm.jsonl", []byte(`{"role":"user","content":"x"}`+"\n"))
	os.Chmod(noperm, 0)

	cases := []struct {
		name     string
		path     string
		args     []string // command; the path is appended
		code     int
		want     string // in stderr
		wantLine bool
	}{
		{"binary", write("bin.jsonl", []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00")), []string{"stats"}, 65, "no valid JSON line", true},
		{"invalid utf-8 in strings", write("utf8.jsonl", []byte("{\"role\":\"user\",\"content\":\"caf\xe9 \xff\xfe\"}\n{\"role\":\"assistant\",\"content\":\"ok\"}\n")), []string{"stats", "--json"}, 0, "", false},
		{"bom", write("bom.jsonl", []byte("\xef\xbb\xbf{\"role\":\"user\",\"content\":\"hi\"}\n")), []string{"load"}, 0, "", false},
		{"crlf", write("crlf.jsonl", []byte("{\"role\":\"user\",\"content\":\"hi\"}\r\n{\"role\":\"assistant\",\"content\":\"yo\"}\r\n")), []string{"load"}, 0, "", false},
		{"nul run", write("nul.jsonl", append(append([]byte("{\"role\":\"user\",\"content\":\"hi\"}\n"), bytes.Repeat([]byte{0}, 4096)...), []byte("\n{\"role\":\"assistant\",\"content\":\"yo\"}\n")...)), []string{"stats"}, 0, "nul.jsonl:2: not valid JSON", true},
		{"nul run strict", filepath.Join(dir, "nul.jsonl"), []string{"stats", "--strict"}, 65, "nul.jsonl:2: not valid JSON", true},
		{"huge single line", write("huge.jsonl", huge), []string{"stats", "--json"}, 0, "", false},
		{"empty file", write("empty.jsonl", nil), []string{"stats", "--json"}, 0, "", false},
		{"empty file load", filepath.Join(dir, "empty.jsonl"), []string{"load"}, 0, "", false},
		{"directory load", dir, []string{"load"}, 1, "is a directory", false},
		{"missing", filepath.Join(dir, "missing.jsonl"), []string{"stats"}, 1, "no such file or directory", false},
		{"missing load", filepath.Join(dir, "missing.jsonl"), []string{"load"}, 1, "no such file or directory", false},
		{"missing compact", filepath.Join(dir, "missing.jsonl"), []string{"compact", "--provider", "extractive"}, 1, "no such file or directory", false},
		{"fifo stats", fifo, []string{"stats"}, 1, "not a regular file", false},
		{"fifo load", fifo, []string{"load"}, 1, "not a regular file", false},
		{"fifo compact", fifo, []string{"compact", "--provider", "extractive"}, 1, "not a regular file", false},
		{"symlink loop", loop, []string{"stats"}, 1, "too many levels of symbolic links", false},
		{"deeply nested line", write("deep.jsonl", append(append([]byte(`{"role":"user","content":"ok"}`+"\n"), bytes.Repeat([]byte("["), 50_000_000)...), '\n')), []string{"stats"}, 0, "deep.jsonl:2: not valid JSON", true},
		{"json array", write("array.jsonl", []byte("[{\"role\":\"user\",\"content\":\"hi\"}]\n")), []string{"stats"}, 65, "a JSON array", true},
		{"fine-tuning line", write("ft.jsonl", []byte(`{"messages":[{"role":"user","content":"hi"}]}`+"\n")), []string{"load"}, 65, "fine-tuning", true},
		{"not a transcript", write("obj.jsonl", []byte(`{"name":"x","value":1}`+"\n")), []string{"stats"}, 65, "no transcript records", true},
	}
	if os.Geteuid() != 0 {
		cases = append(cases, struct {
			name     string
			path     string
			args     []string
			code     int
			want     string
			wantLine bool
		}{"permission denied", noperm, []string{"stats"}, 1, "permission denied", false})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var code int
			var stdout, stderr string
			go func() {
				defer close(done)
				code, stdout, stderr = runCLI(t, dir, append(tc.args, tc.path)...)
			}()
			select {
			case <-done:
			case <-time.After(hangAfter):
				t.Fatal("hung")
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
				t.Errorf("stack trace: %s", stderr)
			}
			if tc.want != "" && !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
			if tc.code != 0 || tc.want != "" {
				if !strings.Contains(stderr, filepath.Base(tc.path)) && !strings.Contains(stderr, tc.path) {
					t.Errorf("stderr does not name the file: %s", stderr)
				}
			}
			if tc.wantLine && !strings.Contains(stderr, ".jsonl:") {
				t.Errorf("stderr does not name the line: %s", stderr)
			}
			_ = stdout
		})
	}
}

// hangAfter is how long a bad input may take before the run counts as hung: generous, because a
// loaded machine running the race detector is slow, while a real hang never ends.
const hangAfter = 5 * time.Minute

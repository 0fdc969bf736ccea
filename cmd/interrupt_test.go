package cmd

import (
	"bytes"
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

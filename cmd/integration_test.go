package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Integration tests against a REAL Ollama server (../shared/tools/ollama-test-server): they run
// when CTXC_TEST_OLLAMA_URL and CTXC_TEST_OLLAMA_MODEL are set (.ci/run sets them) and skip
// otherwise. The server's model has random weights: its text is gibberish, so the summaries
// may fail validation and fall back; the tests check the plumbing, the marker's provenance and
// that nothing is ever truncated or half-written.

func ollamaEnv(t *testing.T) (string, string) {
	t.Helper()
	u, m := os.Getenv("CTXC_TEST_OLLAMA_URL"), os.Getenv("CTXC_TEST_OLLAMA_MODEL")
	if u == "" || m == "" {
		t.Skip("CTXC_TEST_OLLAMA_URL / CTXC_TEST_OLLAMA_MODEL not set")
	}
	return u, m
}

func writeSession(t *testing.T, dir, name string, turns int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(genSession(len(name), turns)), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	return p
}

func lastMarker(t *testing.T, p string) *transcript.Marker {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, line, err := transcript.FindLastMarker(bytes.NewReader(b), int64(len(b)))
	if err != nil || line == nil {
		t.Fatalf("%s: no marker (%v)", p, err)
	}
	var mk transcript.Marker
	if err := json.Unmarshal(line, &mk); err != nil {
		t.Fatal(err)
	}
	return &mk
}

func TestIntegrationCompactOllamaAndOpenAI(t *testing.T) {
	base, model := ollamaEnv(t)
	for _, tc := range []struct {
		provider, endpoint string
	}{
		{"ollama", base},
		{"openai", base + "/v1"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			dir := t.TempDir()
			p := writeSession(t, dir, "s.jsonl", 12)
			before, _ := os.ReadFile(p)
			code, _, stderr := runCLI(t, dir, "compact", "--provider", tc.provider, "--model", model,
				"--endpoint", tc.endpoint, "--threshold", "2000", "--target", "300", p)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			after, _ := os.ReadFile(p)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("bytes before the marker changed")
			}
			mk := lastMarker(t, p)
			if mk.Ctxc.Provider != tc.provider || mk.Ctxc.Model != model {
				t.Errorf("marker provenance: provider %q model %q", mk.Ctxc.Provider, mk.Ctxc.Model)
			}
			t.Logf("%s: fallback %s, chunks %d, %d → %d tokens; stderr: %s", tc.provider, mk.Ctxc.Fallback, mk.Ctxc.Chunks, mk.Ctxc.TokensBefore, mk.Ctxc.TokensAfter, strings.TrimSpace(stderr))
		})
	}
}

// A middle far bigger than the model's window is summarized in chunks and merged.
func TestIntegrationChunked(t *testing.T) {
	base, model := ollamaEnv(t)
	dir := t.TempDir()
	p := writeSession(t, dir, "big.jsonl", 60) // ~25,000 tokens, the model's window is 4,096
	code, _, stderr := runCLI(t, dir, "compact", "--provider", "ollama", "--model", model,
		"--endpoint", base, "--threshold", "5000", "--target", "300", "-vv", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mk := lastMarker(t, p)
	if mk.Ctxc.Chunks < 2 && mk.Ctxc.Fallback != "extractive" {
		t.Errorf("chunks = %d for a middle of %d tokens", mk.Ctxc.Chunks, mk.Ctxc.TokensBefore)
	}
	t.Logf("chunks %d, fallback %s", mk.Ctxc.Chunks, mk.Ctxc.Fallback)
}

// A batch of 50 files with -j 2 against a dedicated real server that is killed halfway: exit 69,
// and every file ctxc did not compact is byte-identical.
func TestIntegrationBatchServerKilled(t *testing.T) {
	ollamaEnv(t)
	up := "../../shared/tools/ollama-test-server/up.sh"
	if _, err := os.Stat(up); err != nil {
		t.Skip("ollama-test-server not available")
	}
	cmd := exec.Command("bash", up)
	cmd.Env = append(os.Environ(), "CTXC_TEST_OLLAMA_PORT=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("starting a dedicated server: %v", err)
	}
	env := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(string(out)), "export ")) {
		if k, v, ok := strings.Cut(f, "="); ok {
			env[k] = v
		}
	}
	var pid int
	fmt.Sscan(env["CTXC_TEST_OLLAMA_PID"], &pid)
	if pid == 0 {
		t.Fatalf("no pid in %q", out)
	}
	t.Cleanup(func() {
		syscall.Kill(-pid, syscall.SIGKILL) // the process group: serve and its model runner
		os.RemoveAll(env["CTXC_TEST_OLLAMA_DIR"])
	})
	// A counting proxy in front of it kills the server after the chat requests of ~25 files.
	target, _ := url.Parse(env["CTXC_TEST_OLLAMA_URL"])
	var chats atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" && chats.Add(1) == 25 {
			syscall.Kill(-pid, syscall.SIGKILL) // the process group: serve and its model runner
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()

	dir := t.TempDir()
	originals := map[string][]byte{}
	for i := 0; i < 50; i++ {
		p := writeSession(t, dir, fmt.Sprintf("s%02d.jsonl", i), 12)
		originals[p], _ = os.ReadFile(p)
	}
	code, stdout, stderr := runCLI(t, dir, "compact", "--provider", "ollama", "--model", env["CTXC_TEST_OLLAMA_MODEL"],
		"--endpoint", srv.URL, "--threshold", "2000", "--target", "300", "-j", "2", "--json", dir)
	if code != cmdutil.ExitUnavailable {
		t.Fatalf("exit %d, want 69\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	compacted, untouched := 0, 0
	for p, orig := range originals {
		now, _ := os.ReadFile(p)
		switch {
		case bytes.Equal(now, orig):
			untouched++
		case bytes.HasPrefix(now, orig):
			compacted++
			lastMarker(t, p)
		default:
			t.Errorf("%s: changed but not by an append", p)
		}
	}
	var summary batchSummary
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"summary"`) {
			json.Unmarshal(sc.Bytes(), &summary)
		}
	}
	if summary.Compacted != compacted || compacted == 0 || untouched == 0 || summary.Untouched == 0 {
		t.Errorf("summary %+v; files: %d compacted, %d untouched", summary, compacted, untouched)
	}
	t.Logf("server killed after %d chat requests: %d compacted, %d byte-identical (%d never started)", 25, compacted, untouched, summary.Untouched)
}

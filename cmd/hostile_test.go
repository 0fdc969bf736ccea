package cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testAPIKey is recognizable: no output, error, log line or marker may ever contain it.
const testAPIKey = "sk-ctxc-test-SECRETKEY-0123456789abcdefXYZ"

func openAIReply(text string) string {
	b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20}})
	return string(b)
}

const goodSummary = "## Summary\n- The user asked to refactor pkg/parse and keep the API stable.\n- Steps read pkg/parse/file*.go."

// TestHostileEndpoints: every way an endpoint misbehaves gives its documented outcome: the
// extractive fallback recorded in the marker, or an error with the right exit code and the file
// byte-for-byte as it was. The API key never shows anywhere.
func TestHostileEndpoints(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, openAIReply(goodSummary))
	}))
	defer other.Close()
	var calls atomic.Int32
	cases := []struct {
		name     string
		handler  http.HandlerFunc
		refused  bool
		code     int
		fallback string // when code == 0
		timeout  string // --timeout; "" is 1s (the cases that hang must end fast)
	}{
		{name: "refused connection", refused: true, code: 69},
		{name: "timeout", handler: func(w http.ResponseWriter, r *http.Request) { time.Sleep(3 * time.Second) }, code: 69},
		{name: "429 then success", handler: func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, openAIReply(goodSummary))
		}, code: 0, fallback: "none"},
		{name: "500", handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }, code: 69},
		{name: "503 forever", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		}, code: 69},
		{name: "garbage JSON", handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{not json at all") }, code: 0, fallback: "extractive"},
		{name: "empty reply", handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, openAIReply("")) }, code: 0, fallback: "extractive"},
		{name: "reply longer than input", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, openAIReply(strings.Repeat("very long summary text ", 20000)))
		}, code: 0, fallback: "extractive"},
		{name: "error-looking reply", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, openAIReply("I'm sorry, but I cannot help with that."))
		}, code: 0, fallback: "extractive"},
		{name: "400 context length", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"This model's maximum context length is 4096 tokens","code":"context_length_exceeded"}}`)
		}, code: 0, fallback: "extractive"},
		{name: "valid JSON wrong shape", handler: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"result":"ok","items":[1,2]}`) }, code: 0, fallback: "extractive"},
		{name: "50 MB reply", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices":[{"message":{"content":"`)
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			for i := 0; i < 50; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			io.WriteString(w, `"}}]}`)
		}, code: 0, fallback: "extractive", timeout: "60s"}, // the size cap ends it, not the clock
		{name: "stream stops mid-JSON", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "500")
			io.WriteString(w, `{"choices":[{"message":{"content":"## Sum`)
			w.(http.Flusher).Flush()
			if hj, ok := w.(http.Hijacker); ok {
				c, _, _ := hj.Hijack()
				c.Close()
			}
		}, code: 69}, // a connection cut mid-reply is a network failure: retry later
		{name: "slow-loris", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(200)
			for i := 0; i < 40; i++ {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}, code: 69},
		{name: "redirect to another host", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusTemporaryRedirect)
		}, code: 1},
		{name: "401 echoing the key", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad key `+r.Header.Get("Authorization")+`"}}`)
		}, code: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			var url string
			if tc.refused {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				url = "http://" + l.Addr().String() + "/v1"
				l.Close()
			} else {
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				url = srv.URL + "/v1"
			}
			dir := t.TempDir()
			p := writeSession(t, dir, "s.jsonl", 12)
			before, _ := os.ReadFile(p)
			timeout := tc.timeout
			if timeout == "" {
				timeout = "1s"
			}
			code, stdout, stderr := runCLIEnv(t, dir, map[string]string{"OPENAI_API_KEY": testAPIKey},
				"compact", "--provider", "openai", "--model", "fake", "--endpoint", url, "--timeout", timeout,
				"--threshold", "2000", "--target", "300", p)
			after, _ := os.ReadFile(p)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, stderr)
			}
			for what, s := range map[string]string{"stdout": stdout, "stderr": stderr, "file": string(after)} {
				if strings.Contains(s, testAPIKey) || strings.Contains(s, "SECRETKEY") {
					t.Errorf("the API key appears in %s", what)
				}
			}
			if tc.code != 0 {
				if !bytes.Equal(before, after) {
					t.Fatal("file changed although nothing was to be written")
				}
				if !strings.Contains(stderr, "s.jsonl") && !strings.Contains(stderr, "openai") {
					t.Errorf("unclear error: %s", stderr)
				}
				return
			}
			if !bytes.HasPrefix(after, before) {
				t.Fatal("bytes before the marker changed")
			}
			mk := lastMarker(t, p)
			if mk.Ctxc.Fallback != tc.fallback || mk.Ctxc.Provider != "openai" {
				t.Errorf("marker fallback %q provider %q, want %q openai", mk.Ctxc.Fallback, mk.Ctxc.Provider, tc.fallback)
			}
		})
	}
}

// TestRedactionBeforeSending: with redaction on (default for remote endpoints; --redact forces
// it for this loopback fake), secrets in the transcript never reach the endpoint, and the
// marker says so.
func TestRedactionBeforeSending(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		io.WriteString(w, openAIReply(goodSummary))
	}))
	defer srv.Close()
	dir := t.TempDir()
	p := writeSession(t, dir, "s.jsonl", 12)
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	data, _ := os.ReadFile(p)
	data = bytes.Replace(data, []byte("Step 3: checking"), []byte("Step 3: token "+secret+" checking"), 1)
	os.WriteFile(p, data, 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	code, _, stderr := runCLIEnv(t, dir, nil, "compact", "--provider", "openai", "--model", "fake", "--endpoint", srv.URL+"/v1",
		"--redact", "--threshold", "2000", "--target", "300", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(bodies) == 0 {
		t.Fatal("no request")
	}
	for _, b := range bodies {
		if strings.Contains(b, secret) {
			t.Fatal("secret sent to the endpoint")
		}
	}
	if !strings.Contains(strings.Join(bodies, ""), "[REDACTED:github-token]") {
		t.Error("placeholder not sent")
	}
	if mk := lastMarker(t, p); !mk.Ctxc.Redacted {
		t.Error("marker does not record the redaction")
	}
}

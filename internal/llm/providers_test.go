package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

func complete(t *testing.T, c Client) (Reply, error) {
	t.Helper()
	return c.Complete(context.Background(), Prompt("system prompt", "<transcript>\nuser: hello\n</transcript>"), Options{NumCtx: 2048, MaxTokens: 100})
}

func wantKind(t *testing.T, err error, k ErrorKind) *EndpointError {
	t.Helper()
	var ee *EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v (%T), want *EndpointError of kind %v", err, err, k)
	}
	if ee.Kind != k {
		t.Fatalf("kind = %v, want %v (error: %v)", ee.Kind, k, err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error leaks the API key: %v", err)
	}
	return ee
}

func TestOllamaRequestShape(t *testing.T) {
	f := llmtest.NewServer(t, 4096, nil)
	c := newClient(t, "ollama", f.URL(), nil)
	if _, err := c.Complete(context.Background(), Prompt("SYS", "USER"), Options{NumCtx: 3072, MaxTokens: 321}); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if len(calls) != 1 {
		t.Fatalf("calls = %d", len(calls))
	}
	got := calls[0]
	if got.Truncate != false {
		t.Errorf("truncate = %v, want false", got.Truncate)
	}
	if got.Stream != false {
		t.Errorf("stream = %v, want false", got.Stream)
	}
	if got.NumCtx != 3072 || got.MaxOut != 321 {
		t.Errorf("num_ctx/num_predict = %d/%d, want 3072/321", got.NumCtx, got.MaxOut)
	}
	if got.System != "SYS" || got.User != "USER" {
		t.Errorf("messages = %q/%q", got.System, got.User)
	}
	if got.Raw["think"] != false {
		t.Errorf("think = %v, want false", got.Raw["think"])
	}
	if got.Raw["keep_alive"] == nil {
		t.Errorf("keep_alive missing")
	}
	opts := got.Raw["options"].(map[string]any)
	if temp, _ := opts["temperature"].(float64); temp <= 0 || temp > 0.5 {
		t.Errorf("temperature = %v", opts["temperature"])
	}
}

func TestOpenAIRequestShape(t *testing.T) {
	f := llmtest.NewServer(t, 0, nil)
	c := newClient(t, "openai", f.URL(), nil)
	if _, err := c.Complete(context.Background(), Prompt("SYS", "USER"), Options{NumCtx: 3072, MaxTokens: 321}); err != nil {
		t.Fatal(err)
	}
	got := f.Calls()[0]
	if got.Stream != false || got.MaxOut != 321 || got.Raw["model"] != "fake-model" {
		t.Errorf("stream/max_tokens/model = %v/%d/%v", got.Stream, got.MaxOut, got.Raw["model"])
	}
	if got.Auth != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got.Auth)
	}
	if _, ok := got.Raw["num_ctx"]; ok {
		t.Errorf("num_ctx sent to openai")
	}
	// Without a key, no Authorization header.
	c = newClient(t, "openai", f.URL(), func(_ *OllamaConfig, a *OpenAIConfig) { a.APIKey = "" })
	if _, err := complete(t, c); err != nil {
		t.Fatal(err)
	}
	if a := f.Calls()[1].Auth; a != "" {
		t.Errorf("Authorization without key = %q", a)
	}
}

func TestOllamaWindow(t *testing.T) {
	f := llmtest.NewServer(t, 5000, nil)
	c := newClient(t, "ollama", f.URL(), nil).(*Ollama)
	for range 2 {
		w, err := c.Window(context.Background())
		if err != nil || w != 5000 {
			t.Fatalf("Window = %d, %v; want 5000", w, err)
		}
	}
	if f.Shows() != 1 {
		t.Errorf("/api/show called %d times, want 1 (cached)", f.Shows())
	}
	if c.ModelfileNumCtx() != 2048 {
		t.Errorf("ModelfileNumCtx = %d", c.ModelfileNumCtx())
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "http://127.0.0.1:11434",
		"0.0.0.0:11434":           "http://127.0.0.1:11434",
		"0.0.0.0":                 "http://127.0.0.1:11434",
		"[::]:8080":               "http://[::1]:8080",
		"localhost:1234":          "http://localhost:1234",
		":9999":                   "http://127.0.0.1:9999",
		"example.com":             "http://example.com:11434",
		"http://example.com":      "http://example.com:80",
		"https://example.com/ol/": "https://example.com:443/ol",
		"http://10.0.0.2:11434/":  "http://10.0.0.2:11434",
	} {
		u, err := OllamaURL(in)
		if err != nil || u.String() != want {
			t.Errorf("OllamaURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "host:notaport", "host:99999"} {
		if _, err := OllamaURL(bad); err == nil {
			t.Errorf("OllamaURL(%q) accepted", bad)
		}
	}
}

func TestReachable(t *testing.T) {
	f := llmtest.NewServer(t, 4096, nil)
	if !Reachable(context.Background(), f.URL()) {
		t.Error("fake not reachable")
	}
	if Reachable(context.Background(), closedAddr(t)) {
		t.Error("closed port reachable")
	}
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer junk.Close()
	if Reachable(context.Background(), junk.URL) {
		t.Error("non-ollama server reachable")
	}
}

// closedAddr returns host:port where nothing listens.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestRefused(t *testing.T) {
	addr := closedAddr(t)
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			c := newClient(t, api, "http://"+addr, nil)
			_, err := complete(t, c)
			wantKind(t, err, Unavailable)
			_, err = c.Window(context.Background())
			if api == "ollama" { // the OpenAI client asks nothing: its window is configured
				wantKind(t, err, Unavailable)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Sleep: 3 * time.Second} })
			c := newClient(t, api, f.URL(), func(o *OllamaConfig, a *OpenAIConfig) {
				o.Timeout, a.Timeout = 150*time.Millisecond, 150*time.Millisecond
			})
			start := time.Now()
			_, err := complete(t, c)
			wantKind(t, err, Unavailable)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v", d)
			}
			if n := len(f.Calls()); n != 1 {
				t.Errorf("timeouts retried: %d calls", n)
			}
		})
	}
}

func TestRetryAfter429(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(n int, _ llmtest.Call) llmtest.Answer {
				if n == 0 {
					return llmtest.Answer{Status: 429, Body: `{"error":"slow down"}`, Header: map[string]string{"Retry-After": "1"}}
				}
				return llmtest.Answer{}
			})
			c := newClient(t, api, f.URL(), nil)
			start := time.Now()
			got, err := complete(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Text, "## Goal") {
				t.Errorf("text = %q", got.Text)
			}
			if n := len(f.Calls()); n != 2 {
				t.Errorf("calls = %d, want 2", n)
			}
			if d := time.Since(start); d < 900*time.Millisecond {
				t.Errorf("Retry-After: 1 not honoured: retried after %v", d)
			}
		})
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Status: 503, Body: `{"error":"busy"}`, Header: map[string]string{"Retry-After": "3600"}}
			})
			c := newClient(t, api, f.URL(), nil)
			_, err := complete(t, c)
			ee := wantKind(t, err, Unavailable)
			if ee.Status != 503 || !strings.Contains(ee.Msg, "Retry-After") {
				t.Errorf("error = %v", err)
			}
			if n := len(f.Calls()); n != 1 {
				t.Errorf("calls = %d, want 1 (no wait of an hour)", n)
			}
		})
	}
}

// TestStatus500 documents the choice: 500 is not retried (it repeats on the same input) and is
// Unavailable; 502-504 are retried.
func TestStatus5xx(t *testing.T) {
	for _, api := range apis {
		t.Run(api+"/500", func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Status: 500, Body: `{"error":"llama runner process has terminated"}`}
			})
			_, err := complete(t, newClient(t, api, f.URL(), nil))
			wantKind(t, err, Unavailable)
			if n := len(f.Calls()); n != 1 {
				t.Errorf("500 retried: %d calls", n)
			}
		})
		t.Run(api+"/502-then-ok", func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(n int, _ llmtest.Call) llmtest.Answer {
				if n < 2 {
					return llmtest.Answer{Status: 502 + n} // 502, then 503 with an empty body
				}
				return llmtest.Answer{}
			})
			if _, err := complete(t, newClient(t, api, f.URL(), nil)); err != nil {
				t.Fatal(err)
			}
			if n := len(f.Calls()); n != 3 {
				t.Errorf("calls = %d, want 3", n)
			}
		})
		t.Run(api+"/504-exhausted", func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Status: 504} })
			_, err := complete(t, newClient(t, api, f.URL(), nil))
			wantKind(t, err, Unavailable)
			if n := len(f.Calls()); n != 1+DefaultMaxRetries {
				t.Errorf("calls = %d, want %d", n, 1+DefaultMaxRetries)
			}
		})
	}
}

func TestAuthAndRejected(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(_ int, c llmtest.Call) llmtest.Answer {
				// An OpenAI-style server echoes the rejected key; Ollama has no key to echo.
				return llmtest.Answer{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + strings.TrimPrefix(c.Auth, "Bearer ") + `"}}`}
			})
			c := newClient(t, api, f.URL(), nil)
			_, err := complete(t, c)
			wantKind(t, err, Auth)

			f = llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Status: 404, Body: `{"error":"model 'fake-model' not found"}`}
			})
			_, err = complete(t, newClient(t, api, f.URL(), nil))
			wantKind(t, err, Rejected)
		})
	}
}

func TestContextLengthStatus(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`}
			})
			_, err := complete(t, newClient(t, api, f.URL(), nil))
			wantKind(t, err, ContextLength)
		})
	}
}

func TestOllamaPromptEvalAtNumCtx(t *testing.T) {
	f := llmtest.NewServer(t, 4096, func(_ int, c llmtest.Call) llmtest.Answer { return llmtest.Answer{PromptEval: c.NumCtx} })
	_, err := complete(t, newClient(t, "ollama", f.URL(), nil))
	wantKind(t, err, ContextLength)
}

func TestGarbageAndWrongShape(t *testing.T) {
	bodies := map[string][]string{
		"ollama": {`not json at all`, `{"foo":1}`, `[1,2,3]`, `{"message":"text","done":true}`},
		"openai": {`not json at all`, `{"foo":1}`, `[1,2,3]`, `{"choices":[]}`, `{"choices":[{"message":{"content":null}}]}`,
			`{"choices":[{"message":{"content":42}}]}`, `{"choices":"x"}`, `{"error":{"message":"upstream failed"}}`,
			`{"choices":[{"message":{"content":"cut short"},"finish_reason":null}]}`},
	}
	for _, api := range apis {
		for _, body := range bodies[api] {
			t.Run(api+"/"+body, func(t *testing.T) {
				f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Body: body} })
				_, err := complete(t, newClient(t, api, f.URL(), nil))
				wantKind(t, err, BadResponse)
			})
		}
	}
}

// TestOllamaReplyCutShort: Ollama aborts a model that repeats one token over and over and sends
// what it had with done:false; the error says so instead of only "without done:true".
func TestOllamaReplyCutShort(t *testing.T) {
	body := `{"model":"m","message":{"role":"assistant","content":"loop loop loop"},"done":false}`
	f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Body: body} })
	_, err := complete(t, newClient(t, "ollama", f.URL(), nil))
	wantKind(t, err, BadResponse)
	if !strings.Contains(err.Error(), "repeats one token") {
		t.Errorf("error %q does not say the server cut the reply short", err)
	}
}

func TestHugeReply(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Huge: 50 << 20} })
			c := newClient(t, api, f.URL(), nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := complete(t, c)
			runtime.ReadMemStats(&after)
			wantKind(t, err, BadResponse)
			// The fake server shares this process; 64 MiB still proves the 50 MB body was not
			// buffered whole (the client keeps at most ~8 MiB).
			grown := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d MiB", grown>>20)
			if grown > 64<<20 {
				t.Errorf("allocated %d MiB for a 50 MB reply", grown>>20)
			}
		})
	}
}

func TestRedirectToOtherHost(t *testing.T) {
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			other := llmtest.NewServer(t, 4096, nil)
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL()+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer redirector.Close()
			_, err := complete(t, newClient(t, api, redirector.URL, nil))
			wantKind(t, err, Rejected)
			if n := len(other.Calls()); n != 0 {
				t.Errorf("the other host received %d requests", n)
			}
		})
	}
}

func TestSameHostRedirectFollowed(t *testing.T) {
	f := llmtest.NewServer(t, 4096, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/old/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/chat/completions", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { f.ServeHTTP(w, r) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := newClient(t, "openai", srv.URL, func(_ *OllamaConfig, a *OpenAIConfig) { a.BaseURL = srv.URL + "/old/v1" })
	if _, err := complete(t, c); err != nil {
		t.Fatal(err)
	}
}

// TestKeyNeverInErrors runs every failure mode against a server that echoes the Authorization
// header back in its bodies.
func TestKeyNeverInErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 413, 422, 429, 500, 502, 200} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"bad key ` + r.Header.Get("Authorization") + ` context length"}}`))
		}))
		c := newClient(t, "openai", srv.URL, func(_ *OllamaConfig, a *OpenAIConfig) {
			a.BaseURL = "http://user:" + testKey + "@" + strings.TrimPrefix(srv.URL, "http://") + "/v1"
		})
		_, err := complete(t, c)
		if err == nil {
			t.Fatalf("status %d: no error", status)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("status %d: key in error: %v", status, err)
		}
		var ee *EndpointError
		if errors.As(err, &ee) && (strings.Contains(ee.Msg, testKey) || strings.Contains(ee.Endpoint, testKey)) {
			t.Errorf("status %d: key in error fields: %+v", status, ee)
		}
		srv.Close()
	}
	// A dial failure with the key in the URL's userinfo.
	c := newClient(t, "openai", "", func(_ *OllamaConfig, a *OpenAIConfig) {
		a.BaseURL = "http://user:" + testKey + "@" + closedAddr(t) + "/v1"
	})
	_, err := complete(t, c)
	wantKind(t, err, Unavailable)
}

func TestOpenAIConfig(t *testing.T) {
	if _, err := NewOpenAI(OpenAIConfig{Model: "m"}); err == nil {
		t.Error("no base URL accepted")
	}
	if _, err := NewOpenAI(OpenAIConfig{BaseURL: "localhost:8080/v1", Model: "m"}); err == nil {
		t.Error("scheme-less base URL accepted")
	}
	if _, err := NewOpenAI(OpenAIConfig{BaseURL: "http://x/v1"}); err == nil {
		t.Error("no model accepted")
	}
	c, err := NewOpenAI(OpenAIConfig{BaseURL: "http://x/v1//", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if c.url != "http://x/v1/chat/completions" {
		t.Errorf("url = %s", c.url)
	}
	if w, _ := c.Window(context.Background()); w != DefaultOpenAIWindow {
		t.Errorf("window = %d", w)
	}
	if c.maxRetries != DefaultMaxRetries {
		t.Errorf("retries = %d", c.maxRetries)
	}
	if _, err := NewOllama(OllamaConfig{}); err == nil {
		t.Error("ollama without model accepted")
	}
}

// TestCancelledContext: a request whose context ends returns the context's error, not an
// EndpointError (the command line says "interrupted", not "unavailable").
func TestCancelledContext(t *testing.T) {
	f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer { return llmtest.Answer{Sleep: 2 * time.Second} })
	for _, api := range apis {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := newClient(t, api, f.URL(), nil).Complete(ctx, Prompt("s", "u"), Options{MaxTokens: 10})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want context.DeadlineExceeded", api, err)
		}
	}
}

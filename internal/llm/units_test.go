package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func TestRetryAfterParse(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	fixed := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now = func() time.Time { return fixed }
	for h, want := range map[string]time.Duration{
		"0":   0,
		"2":   2 * time.Second,
		"1.5": 1500 * time.Millisecond,
		fixed.Add(10 * time.Second).Format(http.TimeFormat):  10 * time.Second,
		fixed.Add(-10 * time.Second).Format(http.TimeFormat): 0,
	} {
		got, ok := parseRetryAfter(h)
		if !ok || got != want {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v", h, got, ok, want)
		}
	}
	for _, bad := range []string{"", "soon", "-1"} {
		if _, ok := parseRetryAfter(bad); ok {
			t.Errorf("parseRetryAfter(%q) accepted", bad)
		}
	}
}

func TestBackoff(t *testing.T) {
	defer func(b, m time.Duration) { retryBase, retryMaxWait = b, m }(retryBase, retryMaxWait)
	retryBase, retryMaxWait = 100*time.Millisecond, time.Second
	for attempt, hi := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		hi *= time.Millisecond
		for range 20 {
			d := backoff(attempt)
			if d < hi/2 || d > hi {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", attempt, d, hi/2, hi)
			}
		}
	}
}

func TestDecodeOpenAI(t *testing.T) {
	c, err := decodeOpenAI([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}`))
	if err != nil || c.Text != "ab" || c.DoneReason != "length" || c.Usage.PromptTokens != 12 || c.Usage.OutputTokens != 3 {
		t.Errorf("decode = %+v, %v", c, err)
	}
	_, err = decodeOpenAI([]byte(`{"error":{"message":"prompt is too long: 9000 tokens"}}`))
	if de, ok := err.(*decodeError); !ok || de.kind != ContextLength {
		t.Errorf("in-band context error = %v", err)
	}
	_, err = decodeOpenAI([]byte(`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`))
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("refusal = %v", err)
	}
}

func TestErrorMessageShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"too big","code":"context_length_exceeded"}}`: "too big [context_length_exceeded]",
		`{"error":"model not found"}`:                                      "model not found",
		`{"detail":"Not Found"}`:                                           "Not Found",
		`plain text`:                                                       "plain text",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%s) = %q, want %q", body, got, want)
		}
	}
	if !mentionsContextLength(errorMessage([]byte(`{"error":{"message":"x","code":"context_length_exceeded"}}`))) {
		t.Error("context_length_exceeded code not recognized")
	}
}

func TestWindowFromShow(t *testing.T) {
	var show struct {
		ModelInfo  map[string]any `json:"model_info"`
		Parameters string         `json:"parameters"`
	}
	json.Unmarshal([]byte(`{"model_info":{"general.architecture":"qwen2","qwen2.context_length":32768,"a.context_length":5},"parameters":"num_ctx 4096"}`), &show)
	s := showResponse(show.ModelInfo, show.Parameters)
	if w, mf := windowFromShow(s); w != 32768 || mf != 4096 {
		t.Errorf("window = %d, modelfile = %d", w, mf)
	}
	if w, _ := windowFromShow(showResponse(nil, "num_ctx 8192")); w != 8192 {
		t.Errorf("window from parameters = %d", w)
	}
	if w, _ := windowFromShow(showResponse(nil, "")); w != defaultOllamaWindow {
		t.Errorf("default window = %d", w)
	}
}

func showResponse(info map[string]any, params string) *api.ShowResponse {
	return &api.ShowResponse{ModelInfo: info, Parameters: params}
}

// TestRequestTimeoutFollowsTheRequest: without a configured timeout a request is bounded in
// proportion to its size (not ten minutes for any request), and a configured one is used as is.
func TestRequestTimeoutFollowsTheRequest(t *testing.T) {
	for _, tc := range []struct {
		chars int
		want  time.Duration
	}{
		{0, 2 * time.Minute},
		{16_000, 3 * time.Minute},
		{160_000, 12 * time.Minute},
	} {
		if got := RequestTimeout(tc.chars); got != tc.want {
			t.Errorf("RequestTimeout(%d) = %s, want %s", tc.chars, got, tc.want)
		}
		ctx, cancel := requestContext(context.Background(), 0, tc.chars)
		dl, ok := ctx.Deadline()
		cancel()
		if !ok || time.Until(dl) > tc.want || time.Until(dl) < tc.want-time.Minute {
			t.Errorf("automatic timeout of %d chars: deadline in %s, want %s", tc.chars, time.Until(dl), tc.want)
		}
	}
	ctx, cancel := requestContext(context.Background(), 5*time.Second, 1_000_000)
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a configured timeout is the HTTP client's: no deadline of the request's size on top")
	}
	if clientTimeout(0) != 0 || clientTimeout(-1) != 0 || clientTimeout(time.Second) != time.Second {
		t.Error("clientTimeout")
	}
}

// TestWatchIsTheSameClient: a watched client is still the one it watches (Ollama sizes num_ctx;
// an OpenAI endpoint does not), says its endpoint, and reports the end of each request.
func TestWatchIsTheSameClient(t *testing.T) {
	ol, err := NewOllama(OllamaConfig{Endpoint: "127.0.0.1:1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	oa, err := NewOpenAI(OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c     Client
		sizes bool
	}{{ol, true}, {oa, false}} {
		var ends int
		w := Watch(tc.c, WatchOptions{Interval: time.Hour, Tick: func(ev Waiting) {
			if ev.Done {
				ends++
			}
			if ev.Provider != tc.c.Provider() || ev.Model != "m" || !strings.Contains(ev.Endpoint, "127.0.0.1:1") {
				t.Errorf("%s: report %+v", tc.c.Provider(), ev)
			}
		}})
		if got := SizesContext(w); got != tc.sizes {
			t.Errorf("%s watched: SizesContext %v, want %v", tc.c.Provider(), got, tc.sizes)
		}
		w.Complete(context.Background(), Prompt("s", "u"), Options{MaxTokens: 10}) // refused: the endpoint is closed
		if ends != 1 {
			t.Errorf("%s: %d ends reported for one request", tc.c.Provider(), ends)
		}
	}
}

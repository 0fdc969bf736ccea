// Package llmtest is a fake model server for tests: an httptest server speaking enough of
// Ollama's native API (/api/version, /api/show, /api/chat) and the OpenAI chat-completions API
// for ctxc's clients, recording every chat request it receives and answering as the test says.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/estimate"
)

// Call is one chat request received by the Server, in either API's shape.
type Call struct {
	API      string // "ollama" or "openai"
	System   string
	User     string
	NumCtx   int // ollama options.num_ctx
	MaxOut   int // ollama num_predict or openai max_tokens
	Stream   any
	Truncate any
	Auth     string
	Raw      map[string]any
}

// Answer is what the Server answers. Zero value: 200 with a short valid summary.
type Answer struct {
	Status     int               // HTTP status (default 200)
	Body       string            // raw body; when set, Text etc. are ignored
	Header     map[string]string // extra headers
	Text       *string           // content; nil means a default short summary
	PromptEval int               // reported prompt tokens; 0 means the estimate of the prompt
	DoneReason string            // default "stop"
	Sleep      time.Duration     // delay before answering (stops early if the client leaves)
	Huge       int               // write this many bytes of a JSON string as content
	// PieceDelay: a streamed reply (the request asked stream:true) waits this long before each
	// of its pieces (its words).
	PieceDelay time.Duration
}

// Server is the fake: its /api/show reports window as the model's trained context length.
type Server struct {
	t      *testing.T
	srv    *httptest.Server
	window int
	answer func(n int, c Call) Answer

	mu    sync.Mutex
	calls []Call
	shows int
}

// NewServer starts a fake that answers the n-th chat request c (from 0) with answer(n, c), or
// with the zero Answer when answer is nil. It is closed when the test ends.
func NewServer(t *testing.T, window int, answer func(n int, c Call) Answer) *Server {
	t.Helper()
	f := &Server{t: t, window: window, answer: answer}
	if f.answer == nil {
		f.answer = func(int, Call) Answer { return Answer{} }
	}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the server's base URL (Ollama's endpoint; OpenAI's base URL is URL()+"/v1").
func (f *Server) URL() string { return f.srv.URL }

// Calls are the chat requests received so far, in order.
func (f *Server) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Shows is how often /api/show was asked.
func (f *Server) Shows() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shows
}

// Strp returns a pointer to s, for Answer.Text.
func Strp(s string) *string { return &s }

// ServeHTTP answers one request, as the server does (a test may mount it behind its own
// handler).
func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/api/version":
		fmt.Fprint(w, `{"version":"0.0.0-fake"}`)
	case r.URL.Path == "/api/show":
		f.mu.Lock()
		f.shows++
		f.mu.Unlock()
		fmt.Fprintf(w, `{"parameters":"num_ctx 2048\ntemperature 0","model_info":{"general.architecture":"llama","llama.context_length":%d,"clip.context_length":7}}`, f.window)
	case r.URL.Path == "/api/chat" || strings.HasSuffix(r.URL.Path, "/chat/completions"):
		f.chat(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *Server) chat(w http.ResponseWriter, r *http.Request) {
	c := f.record(r)
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, c)
	f.mu.Unlock()

	rep := f.answer(n, c)
	if rep.Sleep > 0 {
		select {
		case <-time.After(rep.Sleep):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	switch {
	case rep.Huge > 0:
		writeHuge(w, status, c.API, rep.Huge)
	case rep.Body != "" || rep.Text == nil && status != http.StatusOK:
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
	case c.Stream == true && status == http.StatusOK:
		writeStream(w, r, c, rep)
	default:
		writeReply(w, status, c, rep)
	}
}

// record reads one chat request into a Call.
func (f *Server) record(r *http.Request) Call {
	data, _ := io.ReadAll(r.Body)
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		f.t.Errorf("fake: request body is not JSON: %v", err)
	}
	c := Call{API: "openai", Raw: raw, Stream: raw["stream"], Truncate: raw["truncate"], Auth: r.Header.Get("Authorization")}
	if r.URL.Path == "/api/chat" {
		c.API = "ollama"
	}
	if msgs, ok := raw["messages"].([]any); ok {
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			content, _ := mm["content"].(string)
			switch mm["role"] {
			case "system":
				c.System = content
			case "user":
				c.User = content
			}
		}
	}
	if opts, ok := raw["options"].(map[string]any); ok {
		c.NumCtx = toInt(opts["num_ctx"])
		c.MaxOut = toInt(opts["num_predict"])
	}
	if mt, ok := raw["max_tokens"]; ok {
		c.MaxOut = toInt(mt)
	}
	return c
}

// writeHuge answers with a content string of size bytes, until the client stops reading.
func writeHuge(w http.ResponseWriter, status int, api string, size int) {
	w.WriteHeader(status)
	if api == "ollama" {
		io.WriteString(w, `{"message":{"role":"assistant","content":"`)
	} else {
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"`)
	}
	chunk := strings.Repeat("a", 64<<10)
	for written := 0; written < size; written += len(chunk) {
		if _, err := io.WriteString(w, chunk); err != nil {
			return // the client stopped reading: good
		}
	}
	io.WriteString(w, `"}}]}`)
}

// writeReply answers with a completion in the API's shape.
func writeReply(w http.ResponseWriter, status int, c Call, rep Answer) {
	text, dr, pe := replyParts(c, rep)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any
	if c.API == "ollama" {
		body = map[string]any{
			"model": "fake", "created_at": "2026-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": text},
			"done":    true, "done_reason": dr, "prompt_eval_count": pe, "eval_count": estimate.Tokens(text),
		}
	} else {
		body = map[string]any{
			"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": dr}},
			"usage":   map[string]any{"prompt_tokens": pe, "completion_tokens": estimate.Tokens(text)},
		}
	}
	json.NewEncoder(w).Encode(body)
}

// writeStream answers a streamed request in the API's shape, a word a piece: Ollama's lines of
// JSON ending with done:true, or OpenAI's server-sent events ending with a finish_reason, the
// usage and [DONE].
func writeStream(w http.ResponseWriter, r *http.Request, c Call, rep Answer) {
	text, dr, pe := replyParts(c, rep)
	if c.API == "ollama" {
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	flusher, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if c.API == "ollama" {
			fmt.Fprintf(w, "%s\n", b)
		} else {
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	for _, piece := range strings.SplitAfter(text, " ") {
		if rep.PieceDelay > 0 {
			select {
			case <-time.After(rep.PieceDelay):
			case <-r.Context().Done():
				return
			}
		}
		if c.API == "ollama" {
			send(map[string]any{"model": "fake", "message": map[string]any{"role": "assistant", "content": piece}, "done": false})
		} else {
			send(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}, "finish_reason": nil}}})
		}
	}
	if c.API == "ollama" {
		send(map[string]any{"model": "fake", "message": map[string]any{"role": "assistant", "content": ""}, "done": true,
			"done_reason": dr, "prompt_eval_count": pe, "eval_count": estimate.Tokens(text)})
		return
	}
	send(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": dr}}})
	send(map[string]any{"object": "chat.completion.chunk", "choices": []any{}, "usage": map[string]any{"prompt_tokens": pe, "completion_tokens": estimate.Tokens(text)}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// replyParts are the text, done reason and prompt tokens of an answer, defaults filled in.
func replyParts(c Call, rep Answer) (text, doneReason string, promptTokens int) {
	text = "## Goal\n- keep the fake summary short\n## Last user request\n- finish"
	if rep.Text != nil {
		text = *rep.Text
	}
	promptTokens = rep.PromptEval
	if promptTokens == 0 {
		promptTokens = estimate.Tokens(c.System) + estimate.Tokens(c.User)
	}
	doneReason = rep.DoneReason
	if doneReason == "" {
		doneReason = "stop"
	}
	return text, doneReason, promptTokens
}

// toInt reads a JSON number decoded into an any.
func toInt(v any) int {
	if n, ok := v.(float64); ok {
		return int(n)
	}
	return 0
}

// Ollama is the real Ollama test server the integration tests use: its URL and model, from
// CTXC_TEST_OLLAMA_URL and CTXC_TEST_OLLAMA_MODEL (../shared/tools/ollama-test-server/up.sh
// prints them); the test is skipped when they are not set.
func Ollama(t *testing.T) (url, model string) {
	t.Helper()
	url, model = os.Getenv("CTXC_TEST_OLLAMA_URL"), os.Getenv("CTXC_TEST_OLLAMA_MODEL")
	if url == "" || model == "" {
		t.Skip("CTXC_TEST_OLLAMA_URL and CTXC_TEST_OLLAMA_MODEL not set")
	}
	return url, model
}

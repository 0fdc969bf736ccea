package summarize

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

func TestMain(m *testing.M) {
	// Retries in tests wait milliseconds, not seconds. Retry-After is still honoured as sent.
	retryBase = time.Millisecond
	os.Exit(m.Run())
}

// fakeCall is one chat request received by fakeServer, in either API's shape.
type fakeCall struct {
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

// fakeReply is what the fake answers. Zero value: 200 with a short valid summary.
type fakeReply struct {
	Status     int               // HTTP status (default 200)
	Body       string            // raw body; when set, Text etc. are ignored
	Header     map[string]string // extra headers
	Text       *string           // content; nil means a default short summary
	PromptEval int               // reported prompt tokens; 0 means the estimate of the prompt
	DoneReason string            // default "stop"
	Sleep      time.Duration     // delay before answering (stops early if the client leaves)
	Huge       int               // write this many bytes of a JSON string as content
}

// fakeServer is an httptest server speaking enough of Ollama's native API and the OpenAI
// chat-completions API for the providers under test.
type fakeServer struct {
	t      *testing.T
	srv    *httptest.Server
	window int
	reply  func(n int, c fakeCall) fakeReply

	mu    sync.Mutex
	calls []fakeCall
	shows int
}

func newFake(t *testing.T, window int, reply func(n int, c fakeCall) fakeReply) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, window: window, reply: reply}
	if f.reply == nil {
		f.reply = func(int, fakeCall) fakeReply { return fakeReply{} }
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) URL() string { return f.srv.URL }

func (f *fakeServer) Calls() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func (f *fakeServer) handle(w http.ResponseWriter, r *http.Request) {
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

func (f *fakeServer) chat(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		f.t.Errorf("fake: request body is not JSON: %v", err)
	}
	c := fakeCall{API: "openai", Raw: raw, Stream: raw["stream"], Truncate: raw["truncate"], Auth: r.Header.Get("Authorization")}
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
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, c)
	f.mu.Unlock()

	rep := f.reply(n, c)
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
	if rep.Huge > 0 {
		w.WriteHeader(status)
		if c.API == "ollama" {
			io.WriteString(w, `{"message":{"role":"assistant","content":"`)
		} else {
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"`)
		}
		chunk := strings.Repeat("a", 64<<10)
		for written := 0; written < rep.Huge; written += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client stopped reading: good
			}
		}
		io.WriteString(w, `"}}]}`)
		return
	}
	if rep.Body != "" || rep.Text == nil && status != http.StatusOK {
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
		return
	}
	text := "## Goal\n- keep the fake summary short\n## Last user request\n- finish"
	if rep.Text != nil {
		text = *rep.Text
	}
	pe := rep.PromptEval
	if pe == 0 {
		pe = estimate.Tokens(c.System) + estimate.Tokens(c.User)
	}
	dr := rep.DoneReason
	if dr == "" {
		dr = "stop"
	}
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

func strp(s string) *string { return &s }

// newClient builds the provider under test against the fake.
func newClient(t *testing.T, api, url string, mod func(*OllamaConfig, *OpenAIConfig)) Completer {
	t.Helper()
	oc := OllamaConfig{Endpoint: url, Model: "fake-model", Timeout: 5 * time.Second}
	ac := OpenAIConfig{BaseURL: url + "/v1/", APIKey: testKey, Model: "fake-model", Window: 8192, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&oc, &ac)
	}
	if api == "ollama" {
		c, err := NewOllama(oc)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, err := NewOpenAI(ac)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const testKey = "sk-test-SECRET-KEY-0123456789abcdef"

// sampleItems is a small coding session.
func sampleItems() []Item {
	return []Item{
		{Role: "user", Kind: "text", Text: "Please fix the failing test in estimate/estimate_test.go. Never touch go.mod.", Line: 3},
		{Role: "assistant", Kind: "text", Text: "I'll run the tests first because the failure message matters.", Line: 4},
		{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: `{"command":"go test ./estimate/"}`, Group: 1, Line: 5},
		{Role: "tool", Kind: "tool_result", Name: "Bash", Text: "--- FAIL: TestTokens (0.00s)\n    estimate_test.go:12: got 3, want 2\nFAIL\nexit status 1", IsError: true, Group: 1, Line: 6},
		{Role: "assistant", Kind: "text", Text: "We decided to use utf8.RuneCountInString instead of len, because len counts bytes.", Line: 7},
		{Role: "assistant", Kind: "tool_call", Name: "Edit", Text: `{"file_path":"/home/dev/ctxc/estimate/estimate.go","old_string":"len(s)","new_string":"utf8.RuneCountInString(s)"}`, Group: 2, Line: 8},
		{Role: "tool", Kind: "tool_result", Name: "Edit", Text: "ok", Group: 2, Line: 9},
		{Role: "user", Kind: "text", Text: "Now also add a benchmark for Tokens and run it once.", Line: 10},
		{Role: "assistant", Kind: "text", Text: "Adding BenchmarkTokens to estimate_test.go now.", Line: 11},
	}
}

// bigItems makes n tool exchanges of about size characters each, groups numbered from 1.
func bigItems(n, size int) []Item {
	var items []Item
	line := 1
	items = append(items, Item{Role: "user", Kind: "text", Text: "Refactor the reader package and keep the API stable.", Line: line})
	for i := 1; i <= n; i++ {
		line++
		items = append(items, Item{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: fmt.Sprintf(`{"command":"cat file%d.go"}`, i), Group: i, Line: line})
		line++
		body := strings.Repeat(fmt.Sprintf("line %d of output from the tool call number %d\n", i, i), size/45+1)
		items = append(items, Item{Role: "tool", Kind: "tool_result", Name: "Bash", Text: body[:min(size, len(body))], Group: i, Line: line})
	}
	line++
	items = append(items, Item{Role: "user", Kind: "text", Text: "Finally, run the whole test suite.", Line: line})
	return items
}

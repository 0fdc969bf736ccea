package agentcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// FakeChat is a local OpenAI Chat Completions endpoint, streaming or not, on 127.0.0.1: Copilot
// CLI's default BYOK wire API and droid's generic-chat-completion-api provider (fake_droid.go).
// Anything else it answers 404 (droid asks Factory's API, given as this URL, for the session it
// resumes, and goes on with its local file on a 404). It keeps every request body. Its replies
// are scripted by the conversation it is sent: a last user message holding "READ <path>" gets a call of the agent's file-reading
// tool (ToolCall), a last tool message gets "Read it.", anything else gets Reply.
type FakeChat struct {
	URL string // http://127.0.0.1:PORT (the agent appends /v1/... or is given URL+"/v1")
	// Reply is the text of a plain answer; InputTokens the prompt tokens every reply reports.
	Reply       string
	InputTokens int
	// ToolCall renders the tool call for a path: the tool's name and its JSON arguments.
	ToolCall func(path string) (name, args string)

	ln       net.Listener
	mu       sync.Mutex
	requests [][]byte
	calls    int
}

// StartFakeChat listens on 127.0.0.1 on a free port and serves until Close.
func StartFakeChat(toolCall func(path string) (name, args string)) (*FakeChat, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &FakeChat{URL: "http://" + ln.Addr().String(), Reply: "OK", InputTokens: 10, ToolCall: toolCall, ln: ln}
	go http.Serve(ln, http.HandlerFunc(f.handle))
	return f, nil
}

// Close stops the server.
func (f *FakeChat) Close() error { return f.ln.Close() }

// Requests returns the bodies of the chat requests received so far, in order.
func (f *FakeChat) Requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.requests...)
}

// Last returns the newest chat request body (nil when none came).
func (f *FakeChat) Last() []byte {
	rs := f.Requests()
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

// Reset forgets the requests received so far.
func (f *FakeChat) Reset() {
	f.mu.Lock()
	f.requests = nil
	f.mu.Unlock()
}

func (f *FakeChat) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		if strings.HasSuffix(r.URL.Path, "/models") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"fake-model","object":"model"}]}`)
			return
		}
		http.NotFound(w, r)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Stream   bool          `json:"stream"`
		Messages []chatMessage `json:"messages"`
	}
	json.Unmarshal(body, &req)
	f.mu.Lock()
	f.requests = append(f.requests, body)
	f.calls++
	n := f.calls
	f.mu.Unlock()
	text, call := f.answer(req.Messages, n)
	if req.Stream {
		f.stream(w, text, call)
		return
	}
	f.whole(w, text, call)
}

// answer is the scripted reply: a text, or a tool call (name, args, id).
func (f *FakeChat) answer(ms []chatMessage, n int) (text string, call []string) {
	if len(ms) == 0 {
		return f.Reply, nil
	}
	last := ms[len(ms)-1]
	if last.Role == "tool" {
		return "Read it.", nil
	}
	t := chatText(last.Content)
	if i := strings.LastIndex(t, "READ "); last.Role == "user" && i >= 0 && f.ToolCall != nil {
		path := strings.Fields(t[i+len("READ "):])[0]
		name, args := f.ToolCall(path)
		return "", []string{name, args, fmt.Sprintf("call_fake_%d", n)}
	}
	return f.Reply, nil
}

func (f *FakeChat) usage() map[string]any {
	return map[string]any{"prompt_tokens": f.InputTokens, "completion_tokens": 2, "total_tokens": f.InputTokens + 2}
}

func toolCalls(call []string) []any {
	return []any{map[string]any{"index": 0, "id": call[2], "type": "function",
		"function": map[string]any{"name": call[0], "arguments": call[1]}}}
}

func (f *FakeChat) whole(w http.ResponseWriter, text string, call []string) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if call != nil {
		msg["content"], msg["tool_calls"], finish = nil, toolCalls(call), "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": "chat_fake", "object": "chat.completion", "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}, "usage": f.usage()})
}

func (f *FakeChat) stream(w http.ResponseWriter, text string, call []string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": "chat_fake", "object": "chat.completion.chunk", "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	if call != nil {
		event(map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls(call)}, nil, nil)
		event(map[string]any{}, "tool_calls", f.usage())
	} else {
		event(map[string]any{"role": "assistant", "content": text}, nil, nil)
		event(map[string]any{}, "stop", f.usage())
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// CopilotView is the call of Copilot CLI's file-reading tool.
func CopilotView(path string) (name, args string) {
	return "view", fmt.Sprintf(`{"path":%q}`, path)
}

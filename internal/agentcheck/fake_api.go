package agentcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// FakeAPI is a model endpoint on 127.0.0.1 for agents that speak the Gemini API (Gemini CLI) or
// OpenAI Chat Completions (Qwen Code): it records every request body and answers from the
// conversation it is sent, so that an agent run offline writes a real session file. The answer
// rule: when the conversation ends with a tool result, a short text ("Done."); when the last user
// text contains ToolWord and the agent declared a tool named Tool, a call of that tool with Args;
// when it asks for a <state_snapshot> (the agent's own compression), SnapshotReply; otherwise
// "OK". Requests that are not the agent's turn (a JSON-schema request for a title or a
// check) are answered with the text "{}" so that the agent moves on.
type FakeAPI struct {
	URL  string
	Tool string         // the tool to call, by its declared name
	Args map[string]any // its arguments
	// Calls is how many tool results a conversation asked for a call gets before the fake
	// answers "Done." (0: 1).
	Calls int
	// Done, when the agent declares a tool of that name, is called with {"result": text} in
	// place of a text answer (an agent whose turns end with a tool: Cline 2.x).
	Done string

	inputTokens int      // the prompt usage each answer reports (0: 100): SetInputTokens
	cues        []string // further texts that ask for an agent's own compaction summary: AddSummaryCue
	undeclared  bool     // CallUndeclared: the tool is called though the agent did not declare it
	snapshot    bool     // the fake answered an agent's compression request
	compacted   bool     // and a request came after it: usage 100 from then on

	srv  *http.Server
	ln   net.Listener
	mu   sync.Mutex
	reqs []Request
}

// SnapshotReply is the fake's answer to an agent's own compression request (Gemini CLI and Qwen
// Code ask for a <state_snapshot>, opencode for an anchored summary: OpencodeSummaryCue, Continue
// CLI for a summary: ContinueSummaryCue, Goose: GooseSummaryCue, Nanocoder: NanocoderSummaryCue).
const SnapshotReply = "<state_snapshot>The user looked at the project and asked two questions.</state_snapshot>"

// ToolWord in a user prompt asks the fake for a tool call.
const ToolWord = "[use the tool]"

// Request is one request an agent sent: its path and body.
type Request struct {
	Path string
	Body []byte
}

// StartFakeAPI listens on 127.0.0.1 (a free port) and serves until Stop.
func StartFakeAPI(tool string, args map[string]any) (*FakeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &FakeAPI{URL: "http://" + ln.Addr().String(), Tool: tool, Args: args, ln: ln}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
	return f, nil
}

// Stop closes the server.
func (f *FakeAPI) Stop() { f.srv.Close() }

// Requests returns the requests received so far whose path contains part, in order.
func (f *FakeAPI) Requests(part string) []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Request
	for _, r := range f.reqs {
		if strings.Contains(r.Path, part) {
			out = append(out, r)
		}
	}
	return out
}

func (f *FakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, Request{Path: r.URL.Path, Body: body})
	f.mu.Unlock()
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
	case strings.HasSuffix(p, ":streamGenerateContent"):
		f.geminiStream(w, body)
	case strings.HasSuffix(p, ":generateContent"):
		writeJSON(w, f.geminiResponse(body))
	case strings.HasSuffix(p, "/chat/completions"):
		f.chat(w, body)
	case strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "fake-model", "object": "model"}}})
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// answer is what the fake replies: a text or a call of tool with args.
type answer struct {
	text string
	call bool
	tool string
	args map[string]any
}

// decide applies the answer rule to a conversation: lastResult says it ends with a tool result,
// lastUser is the last user text, tools the declared tool names, schema that a JSON answer is
// asked for.
func (f *FakeAPI) decide(lastResult bool, results int, lastUser string, tools []string, schema bool) answer {
	snapshot := strings.Contains(lastUser, "<state_snapshot>") || strings.Contains(lastUser, OpencodeSummaryCue) ||
		strings.Contains(lastUser, ContinueSummaryCue) || strings.Contains(lastUser, GooseSummaryCue) ||
		strings.Contains(lastUser, NanocoderSummaryCue)
	f.mu.Lock()
	for _, c := range f.cues {
		snapshot = snapshot || strings.Contains(lastUser, c)
	}
	if f.snapshot && !snapshot {
		f.compacted = true // a request after the agent's compression: its context is the summary
	}
	f.snapshot = f.snapshot || snapshot
	call := answer{call: true, tool: f.Tool, args: f.Args}
	undeclared := f.undeclared
	f.mu.Unlock()
	switch {
	case schema:
		return answer{text: "{}"}
	case lastResult && results >= max(f.Calls, 1):
		return answer{text: "Done."}
	case snapshot:
		return answer{text: SnapshotReply}
	case strings.Contains(lastUser, ToolWord) || lastResult:
		if undeclared {
			return call
		}
		for _, t := range tools {
			if t == call.tool {
				return call
			}
		}
	}
	return answer{text: "OK"}
}

// CallUndeclared makes the fake call tool, which the agent does not declare (a model that
// calls a tool the agent does not have, which the agent answers with an error result).
func (f *FakeAPI) CallUndeclared(tool string) {
	f.mu.Lock()
	f.Tool, f.undeclared = tool, true
	f.mu.Unlock()
}

// AddSummaryCue makes the fake answer a last user text that contains cue as an agent's request
// for its own compaction summary (SnapshotReply), as it answers the cues it knows.
func (f *FakeAPI) AddSummaryCue(cue string) {
	f.mu.Lock()
	f.cues = append(f.cues, cue)
	f.mu.Unlock()
}

// SetInputTokens sets the prompt usage the answers report from now on (an agent that sees a
// context near its window compacts it).
func (f *FakeAPI) SetInputTokens(n int) {
	f.mu.Lock()
	f.inputTokens = n
	f.mu.Unlock()
}

func (f *FakeAPI) usage() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inputTokens > 0 && !f.compacted {
		return f.inputTokens
	}
	return 100
}

// geminiAnswer reads a Gemini API request (contents, tools, generationConfig).
func (f *FakeAPI) geminiAnswer(body []byte) answer {
	req := gjson.ParseBytes(body)
	contents := req.Get("contents").Array()
	lastResult, lastUser := false, ""
	if n := len(contents); n > 0 {
		last := contents[n-1]
		lastResult = strings.Contains(last.Get("parts").Raw, `"functionResponse"`)
		for _, c := range contents {
			if c.Get("role").Str == "user" {
				for _, p := range c.Get("parts").Array() {
					if p.Get("text").Exists() {
						lastUser = p.Get("text").Str
					}
				}
			}
		}
	}
	var tools []string
	req.Get("tools.#.functionDeclarations.#.name").ForEach(func(_, v gjson.Result) bool {
		v.ForEach(func(_, n gjson.Result) bool { tools = append(tools, n.Str); return true })
		return true
	})
	schema := req.Get("generationConfig.responseMimeType").Str == "application/json" ||
		req.Get("generationConfig.responseJsonSchema").Exists() || req.Get("generationConfig.responseSchema").Exists()
	return f.decide(lastResult, strings.Count(req.Get("contents").Raw, `"functionResponse"`), lastUser, tools, schema)
}

func (f *FakeAPI) geminiResponse(body []byte) map[string]any {
	a := f.geminiAnswer(body)
	var part map[string]any
	if a.call {
		part = map[string]any{"functionCall": map[string]any{"name": a.tool, "args": a.args}}
	} else {
		part = map[string]any{"text": a.text}
	}
	return map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": f.usage(), "candidatesTokenCount": 5, "totalTokenCount": f.usage() + 5},
		"modelVersion":  "fake-model",
	}
}

// geminiStream answers :streamGenerateContent?alt=sse with one event.
func (f *FakeAPI) geminiStream(w http.ResponseWriter, body []byte) {
	b, _ := json.Marshal(f.geminiResponse(body))
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// chatAnswer reads a Chat Completions request (messages, tools, response_format).
func (f *FakeAPI) chatAnswer(body []byte) answer {
	req := gjson.ParseBytes(body)
	msgs := req.Get("messages").Array()
	lastResult, lastUser := false, ""
	if n := len(msgs); n > 0 {
		lastResult = msgs[n-1].Get("role").Str == "tool"
	}
	for _, m := range msgs {
		if m.Get("role").Str != "user" {
			continue
		}
		if c := m.Get("content"); c.Type == gjson.String {
			if !reminderOnly(c.Str) {
				lastUser = c.Str
			}
		} else {
			c.ForEach(func(_, p gjson.Result) bool {
				// (not the details kilo adds after every user message's own texts)
				if t := p.Get("text").Str; p.Get("type").Str == "text" && !kiloInjected(t) && !clineTaskInjected(t) && !reminderOnly(t) {
					lastUser = t
				}
				return true
			})
		}
	}
	var tools []string
	req.Get("tools.#.function.name").ForEach(func(_, v gjson.Result) bool { tools = append(tools, v.Str); return true })
	schema := req.Get("response_format").Exists()
	results := 0
	for _, m := range msgs {
		if m.Get("role").Str == "tool" {
			results++
		}
	}
	a := f.decide(lastResult, results, lastUser, tools, schema)
	if !a.call && f.Done != "" && slices.Contains(tools, f.Done) && !schema {
		a = answer{call: true, tool: f.Done, args: map[string]any{"result": a.text}}
	}
	return a
}

// reminderOnly: a user text that is nothing but a <system-reminder>, which an agent may add
// after the prompt as a user message of its own (the date, its permission mode): not what the
// user asked.
func reminderOnly(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<system-reminder>") && strings.HasSuffix(t, "</system-reminder>")
}

// clineTaskInjected: the note Cline 2.x adds after a user message's texts (its task_progress
// reminder), which is not what the user asked.
func clineTaskInjected(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "# task_progress")
}

// chat answers Chat Completions, streamed (SSE chunks) or not.
func (f *FakeAPI) chat(w http.ResponseWriter, body []byte) {
	a := f.chatAnswer(body)
	f.mu.Lock()
	callID := fmt.Sprintf("call_%d", len(f.reqs))
	f.mu.Unlock()
	args, _ := json.Marshal(a.args)
	msg := map[string]any{"role": "assistant", "content": a.text}
	finish := "stop"
	if a.call {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"index": 0, "id": callID, "type": "function",
			"function": map[string]any{"name": a.tool, "arguments": string(args)}}}}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": f.usage(), "completion_tokens": 5, "total_tokens": f.usage() + 5}
	if !gjson.GetBytes(body, "stream").Bool() {
		writeJSON(w, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range []map[string]any{
		{"index": 0, "delta": msg, "finish_reason": nil},
		{"index": 0, "delta": map[string]any{}, "finish_reason": finish},
	} {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake-model", "choices": []any{c}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake-model", "choices": []any{}, "usage": usage})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

// TestStreamedReplyIsTheWholeReply: with Options.Received the reply is asked for streamed,
// each piece is counted as it arrives, and the reply is the one a whole response gives: the
// same text, done reason and usage. Without it the request is not streamed.
func TestStreamedReplyIsTheWholeReply(t *testing.T) {
	text := "## Goal\n- one two three four five"
	for _, api := range apis {
		t.Run(api, func(t *testing.T) {
			f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
				return llmtest.Answer{Text: llmtest.Strp(text), PromptEval: 321, DoneReason: "length"}
			})
			c := newClient(t, api, f.URL(), nil)
			whole, err := c.Complete(context.Background(), Prompt("sys", "user"), Options{MaxTokens: 50})
			if err != nil {
				t.Fatal(err)
			}
			var counts []int
			streamed, err := c.Complete(context.Background(), Prompt("sys", "user"), Options{MaxTokens: 50,
				Received: func(n int) { counts = append(counts, n) }})
			if err != nil {
				t.Fatal(err)
			}
			if streamed != whole || streamed.Text != text || streamed.DoneReason != "length" || streamed.Usage.PromptTokens != 321 {
				t.Errorf("streamed %+v, whole %+v", streamed, whole)
			}
			pieces := len(strings.SplitAfter(text, " "))
			if len(counts) != pieces || counts[0] != 1 || counts[len(counts)-1] != pieces {
				t.Errorf("pieces counted %v, want 1..%d", counts, pieces)
			}
			calls := f.Calls()
			if calls[0].Stream != false || calls[1].Stream != true {
				t.Errorf("stream asked: %v then %v, want false then true", calls[0].Stream, calls[1].Stream)
			}
			if api == "openai" {
				if _, ok := calls[0].Raw["stream_options"]; ok {
					t.Error("stream_options sent on a request that is not streamed")
				}
				if so, _ := calls[1].Raw["stream_options"].(map[string]any); so["include_usage"] != true {
					t.Errorf("stream_options %v, want include_usage", calls[1].Raw["stream_options"])
				}
			}
		})
	}
}

// TestOpenAIStreamFaults: a streamed reply is judged by the rules of a whole one: an in-band
// error, a reply cut before its finish_reason, a chunk that is not JSON; a server that answers
// a streamed request whole is read as usual.
func TestOpenAIStreamFaults(t *testing.T) {
	chunk := func(content, finish string) string {
		f := "null"
		if finish != "" {
			f = fmt.Sprintf("%q", finish)
		}
		return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":%s}]}\n\n", content, f)
	}
	for _, tc := range []struct {
		name, ctype, body string
		want              string // the reply's text, or "" when an error is wanted
		kind              ErrorKind
		msg               string
	}{
		{"whole", "text/event-stream", ": comment\n\n" + chunk("a ", "") + chunk("b", "") + chunk("", "stop") + "data: [DONE]\n\n", "a b", 0, ""},
		{"crlf and no space", "text/event-stream; charset=utf-8", strings.ReplaceAll(strings.ReplaceAll(chunk("x", "stop"), "data: ", "data:"), "\n", "\r\n"), "x", 0, ""},
		{"after done ignored", "text/event-stream", chunk("x", "stop") + "data: [DONE]\n\ndata: not json\n\n", "x", 0, ""},
		{"no finish", "text/event-stream", chunk("a", "") + "data: [DONE]\n\n", "", BadResponse, "did not complete"},
		{"cut", "text/event-stream", chunk("a", ""), "", BadResponse, "did not complete"},
		{"in-band error", "text/event-stream", chunk("a", "") + "data: {\"error\":{\"message\":\"boom\"}}\n\n", "", BadResponse, "boom"},
		{"context error", "text/event-stream", "data: {\"error\":{\"message\":\"maximum context length exceeded\"}}\n\n", "", ContextLength, "context length"},
		{"not json", "text/event-stream", "data: {oops\n\n", "", BadResponse, "not a chat completion chunk"},
		{"answered whole", "application/json", `{"choices":[{"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}`, "whole", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			c := newClient(t, "openai", srv.URL, func(_ *OllamaConfig, ac *OpenAIConfig) { ac.MaxRetries = -1 })
			got, err := c.Complete(context.Background(), Prompt("s", "u"), Options{Received: func(int) {}})
			if tc.want != "" {
				if err != nil || got.Text != tc.want {
					t.Fatalf("got %+v, %v; want text %q", got, err, tc.want)
				}
				return
			}
			var ee *EndpointError
			if !errors.As(err, &ee) || ee.Kind != tc.kind || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err %v, want kind %v with %q", err, tc.kind, tc.msg)
			}
		})
	}
}

// TestWatchHearsTokens: a watch that asks for tokens hears them grow while the reply streams;
// one that does not sends the request unstreamed and hears none.
func TestWatchHearsTokens(t *testing.T) {
	for _, api := range apis {
		for _, tokens := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/%v", api, tokens), func(t *testing.T) {
				f := llmtest.NewServer(t, 4096, func(int, llmtest.Call) llmtest.Answer {
					return llmtest.Answer{Text: llmtest.Strp("a b c d e f"), PieceDelay: 30 * time.Millisecond}
				})
				var mu sync.Mutex
				most, last := 0, -1
				w := Watch(newClient(t, api, f.URL(), nil), WatchOptions{Interval: 10 * time.Millisecond, Tokens: tokens, Tick: func(ev Waiting) {
					mu.Lock()
					defer mu.Unlock()
					most = max(most, ev.Tokens)
					if ev.Done {
						last = ev.Tokens
					}
				}})
				if _, err := w.Complete(context.Background(), Prompt("s", "u"), Options{}); err != nil {
					t.Fatal(err)
				}
				if want := map[bool]int{true: 6, false: 0}[tokens]; most != want || last != want {
					t.Errorf("tokens heard: most %d, at the end %d; want %d", most, last, want)
				}
				if got := f.Calls()[0].Stream; got != tokens {
					t.Errorf("stream asked %v, want %v", got, tokens)
				}
			})
		}
	}
}

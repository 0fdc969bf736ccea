// Package llm is ctxc's client of language models: one interface (Client), its two
// implementations (Ollama's native /api/chat and any OpenAI-compatible /v1/chat/completions
// endpoint), the HTTP layer they share (size-capped bodies, same-host redirects, a timeout sized
// by the request), retries with backoff and Retry-After, the typed errors the command line maps
// to exit codes (EndpointError, ChoiceError, ConfigError), and Choose, which resolves what the
// user asked for (--provider, --model, --endpoint, OLLAMA_HOST, OPENAI_BASE_URL, the API key's
// variable) to a Client.
//
// It knows nothing of transcripts or summaries: internal/summarize writes the prompts and
// judges the replies, internal/memory phrases its notes; both only send messages here.
package llm

import "context"

// Message is one message of a chat request.
type Message struct {
	Role    string // "system" or "user"
	Content string
}

// Options tune one request.
type Options struct {
	// NumCtx is the context size to request in tokens (Ollama's options.num_ctx; an
	// OpenAI-compatible endpoint has no such setting and ignores it). 0 sends none.
	NumCtx int
	// MaxTokens caps the reply (Ollama's num_predict, OpenAI's max_tokens).
	MaxTokens int
	// Received, when set, asks for the reply streamed: it hears the count of pieces of the
	// reply received so far (each about a token), as they arrive. Without it the reply is asked
	// for whole, in one response.
	Received func(tokens int)
}

// Usage is what the server reported of one request's tokens (0 when it did not say).
type Usage struct {
	PromptTokens int // Ollama's prompt_eval_count, OpenAI's usage.prompt_tokens
	OutputTokens int // Ollama's eval_count, OpenAI's usage.completion_tokens
}

// Reply is one answer of a model.
type Reply struct {
	Text       string
	Usage      Usage
	DoneReason string // why generation stopped: "stop", "length", "content_filter"...
}

// Client is one model at one endpoint.
type Client interface {
	Provider() string // "ollama" or "openai"
	Model() string
	// Window returns the model's context window in tokens (ollama: /api/show model_info
	// "*.context_length"; openai: configured, default DefaultOpenAIWindow).
	Window(ctx context.Context) (int, error)
	// Complete sends the messages and returns the model's reply.
	Complete(ctx context.Context, msgs []Message, opts Options) (Reply, error)
}

// Prompt is the request every caller of ctxc sends: a system prompt and one user message.
func Prompt(system, user string) []Message {
	return []Message{{Role: "system", Content: system}, {Role: "user", Content: user}}
}

// SizesContext reports whether c honours Options.NumCtx, so that asking again with a larger
// context can help after a ContextLength error. A Client that wraps another says so by
// forwarding the method.
func SizesContext(c Client) bool {
	s, ok := c.(interface{ SizesContext() bool })
	return ok && s.SizesContext()
}

// contentChars is the size of the messages' text, in bytes: what bounds the request's time.
func contentChars(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

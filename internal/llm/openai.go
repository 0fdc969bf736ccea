package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of the OpenAI-compatible provider.
const (
	// DefaultOpenAIWindow is assumed when the configuration gives none: the chat-completions API
	// does not report a model's context length, and 8192 is a size nearly every served model has.
	DefaultOpenAIWindow = 8192
	// DefaultMaxRetries is the number of retries after the first attempt.
	DefaultMaxRetries = 3
	openaiTemperature = 0.2
)

// OpenAIConfig configures a client of any OpenAI-compatible /v1/chat/completions endpoint
// (OpenAI, vLLM, llama.cpp server, LM Studio, OpenRouter, Ollama's /v1).
type OpenAIConfig struct {
	// BaseURL includes the version path, e.g. "http://127.0.0.1:8080/v1"; trailing slashes are
	// trimmed and "/chat/completions" appended.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" when non-empty. It never appears in errors.
	APIKey string
	Model  string
	// Window is the model's context window in tokens (default DefaultOpenAIWindow).
	Window int
	// Timeout bounds each HTTP attempt (0: RequestTimeout of its size; negative means none).
	Timeout time.Duration
	// MaxRetries counts retries after the first attempt (default DefaultMaxRetries; negative
	// means none).
	MaxRetries int
	// HTTPClient is copied, never modified; nil means a fresh client.
	HTTPClient *http.Client
}

// OpenAI is a Client of OpenAI-compatible servers, written on net/http: the API surface ctxc
// needs is one non-streaming POST, and an SDK would add megabytes and implicit environment reads.
type OpenAI struct {
	url        string // {base}/chat/completions
	endpoint   string // base URL for messages, password redacted
	key        string
	model      string
	window     int
	maxRetries int
	timeout    time.Duration // as configured: 0 bounds each request by its size
	hc         *http.Client
}

// NewOpenAI validates cfg and builds the provider. It does not contact the server.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		return nil, errors.New("summarize: openai: no base URL configured")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("summarize: openai: base URL must be http(s)://host[:port]/v1")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("summarize: openai: no model configured")
	}
	window := cfg.Window
	if window <= 0 {
		window = DefaultOpenAIWindow
	}
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	return &OpenAI{
		url:        base + "/chat/completions",
		endpoint:   redact(u.Redacted(), cfg.APIKey),
		key:        cfg.APIKey,
		model:      strings.TrimSpace(cfg.Model),
		window:     window,
		maxRetries: retries,
		timeout:    cfg.Timeout,
		hc:         newHTTPClient(cfg.HTTPClient, clientTimeout(cfg.Timeout)),
	}, nil
}

// Provider implements Client.
func (o *OpenAI) Provider() string { return "openai" }

// Model implements Client.
func (o *OpenAI) Model() string { return o.model }

// Endpoint is the base URL (for messages).
func (o *OpenAI) Endpoint() string { return o.endpoint }

// Window implements Client: the configured window (the API has no way to ask).
func (o *OpenAI) Window(context.Context) (int, error) { return o.window, nil }

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openaiRequest struct {
	Model    string          `json:"model"`
	Messages []openaiMessage `json:"messages"`
	Stream   bool            `json:"stream"`
	// StreamOptions asks a streamed reply to end with its usage.
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	Temperature   float64        `json:"temperature"`
}

// Complete implements Client. Options.NumCtx is ignored: the OpenAI API has no such setting
// (servers such as Ollama's /v1 size the context from their own configuration). Retries happen
// only before a response is accepted: on dial errors, 429 and 502-504, honouring Retry-After.
func (o *OpenAI) Complete(ctx context.Context, msgs []Message, opts Options) (Reply, error) {
	messages := make([]openaiMessage, len(msgs))
	for i, m := range msgs {
		messages[i] = openaiMessage(m)
	}
	req := openaiRequest{
		Model:       o.model,
		Messages:    messages,
		MaxTokens:   opts.MaxTokens,
		Temperature: openaiTemperature,
	}
	if opts.Received != nil {
		req.Stream, req.StreamOptions = true, &streamOptions{IncludeUsage: true}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	ctx, cancel := requestContext(ctx, o.timeout, contentChars(msgs))
	defer cancel()
	var out Reply
	err = withRetries(ctx, o.maxRetries, func(ctx context.Context) attemptOutcome {
		var oc attemptOutcome
		out, oc = o.attempt(ctx, body, opts.Received)
		return oc
	})
	if err != nil {
		return Reply{}, err
	}
	return out, nil
}

func (o *OpenAI) fail(kind ErrorKind, status int, msg string, err error) *EndpointError {
	return &EndpointError{Provider: "openai", Endpoint: o.endpoint, Status: status, Kind: kind,
		Msg: redact(msg, o.key), Err: redactErr(err, o.key)}
}

// attempt is one try: the request sent, the reply read whole, then accepted (2xx) or judged by
// its status. A streamed reply (received set, and the server streams) is read as it comes.
func (o *OpenAI) attempt(ctx context.Context, body []byte, received func(int)) (Reply, attemptOutcome) {
	resp, oc := o.send(ctx, body)
	if resp == nil {
		return Reply{}, oc
	}
	defer resp.Body.Close()
	if received != nil && resp.StatusCode/100 == 2 && isEventStream(resp.Header.Get("Content-Type")) {
		return o.acceptStream(ctx, resp, received)
	}
	data, readErr := io.ReadAll(resp.Body)
	if ctx.Err() != nil {
		return Reply{}, attemptOutcome{err: ctx.Err()}
	}
	status := resp.StatusCode
	if status >= 200 && status < 300 {
		return o.accept(status, data, readErr)
	}
	msg := errorMessage(data)
	if errors.Is(readErr, errBodyTooLarge) {
		msg = "(error body larger than 8 MiB)"
	}
	return Reply{}, o.refused(status, msg, resp.Header.Get("Retry-After"))
}

// send posts the body; without a response, the outcome says why.
func (o *OpenAI) send(ctx context.Context, body []byte) (*http.Response, attemptOutcome) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return nil, attemptOutcome{err: o.fail(Rejected, 0, "cannot build request", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.key != "" {
		req.Header.Set("Authorization", "Bearer "+o.key)
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, attemptOutcome{err: ctx.Err()}
		}
		kind, msg, retry := transportKind(err)
		if kind == 0 {
			kind, msg = Unavailable, "request failed"
		}
		return nil, attemptOutcome{err: o.fail(kind, 0, msg, err), retry: retry}
	}
	return resp, attemptOutcome{}
}

// accept decodes a 2xx reply, read whole unless readErr says otherwise.
func (o *OpenAI) accept(status int, data []byte, readErr error) (Reply, attemptOutcome) {
	if readErr != nil {
		kind, msg, _ := transportKind(readErr)
		if kind == 0 {
			kind, msg = Unavailable, "reading the response failed"
		}
		return Reply{}, attemptOutcome{err: o.fail(kind, status, msg, readErr)}
	}
	c, derr := decodeOpenAI(data)
	if derr != nil {
		var de *decodeError
		kind := BadResponse
		if errors.As(derr, &de) {
			kind = de.kind
		}
		return Reply{}, attemptOutcome{err: o.fail(kind, status, derr.Error(), nil)}
	}
	return c, attemptOutcome{}
}

// refused classifies an error status, msg being what its body said, and decides whether to retry.
func (o *OpenAI) refused(status int, msg, retryAfter string) attemptOutcome {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return attemptOutcome{err: o.fail(Auth, status, orStatus(msg, status), nil)}
	case status == http.StatusRequestEntityTooLarge, status < 500 && status != 429 && mentionsContextLength(msg):
		return attemptOutcome{err: o.fail(ContextLength, status, orStatus(msg, status), nil)}
	case retryableStatus(status):
		m := orStatus(msg, status)
		if retryAfter != "" {
			m += " (Retry-After: " + snippet(retryAfter, 40) + ")"
		}
		return attemptOutcome{err: o.fail(Unavailable, status, m, nil), retry: true, retryAfter: retryAfter}
	case status >= 500:
		if mentionsContextLength(msg) {
			return attemptOutcome{err: o.fail(ContextLength, status, msg, nil)}
		}
		return attemptOutcome{err: o.fail(Unavailable, status, orStatus(msg, status), nil)}
	case status == http.StatusNotFound:
		return attemptOutcome{err: o.fail(Rejected, status,
			orStatus(msg, status)+" (check the model name, and that the base URL ends in /v1)", nil)}
	default:
		return attemptOutcome{err: o.fail(Rejected, status, orStatus(msg, status), nil)}
	}
}

func orStatus(msg string, status int) string {
	if msg != "" {
		return msg
	}
	return http.StatusText(status)
}

// errorMessage extracts a readable message from an error body: OpenAI's
// {"error":{"message","code"}}, the {"error":"..."} of Ollama and llama.cpp, FastAPI's
// {"detail":...}, or else the raw text.
func errorMessage(data []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &v) == nil {
		if msg := errorField(v.Error); msg != "" {
			return snippet(msg, 300)
		}
		if v.Message != "" {
			return snippet(v.Message, 300)
		}
		if len(v.Detail) > 0 {
			var s string
			if json.Unmarshal(v.Detail, &s) == nil {
				return snippet(s, 300)
			}
			return snippet(string(v.Detail), 300)
		}
	}
	return snippet(string(data), 300)
}

// errorField reads an "error" member that is a string or {"message":..., "code":..., "type":...}.
// The code is appended because "context_length_exceeded" is often only there.
func errorField(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return string(raw)
	}
	msg := obj.Message
	if code, ok := obj.Code.(string); ok && code != "" && !strings.Contains(msg, code) {
		msg += " [" + code + "]"
	} else if obj.Type != "" && msg == "" {
		msg = obj.Type
	}
	if msg == "" {
		msg = string(raw)
	}
	return msg
}

// decodeError carries the ErrorKind a decoding failure maps to.
type decodeError struct {
	kind ErrorKind
	msg  string
}

func (d *decodeError) Error() string { return d.msg }

// decodeOpenAI parses a chat.completion body. It accepts content as a string or as an array of
// {"type":"text","text":...} parts (some gateways), and reports an in-band {"error":...} on a
// 200 reply. Anything else (no choices, null content, wrong types) is BadResponse.
func decodeOpenAI(data []byte) (Reply, error) {
	var r openaiBody
	if err := json.Unmarshal(data, &r); err != nil {
		return Reply{}, &decodeError{BadResponse, "response is not a chat completion: " + snippet(err.Error(), 120)}
	}
	if de := inBandError(r.Error); de != nil {
		return Reply{}, de
	}
	if len(r.Choices) == 0 || r.Choices[0].Message == nil {
		return Reply{}, &decodeError{BadResponse, "response has no choices[0].message"}
	}
	ch := r.Choices[0]
	text, ok := contentText(ch.Message.Content)
	if !ok {
		if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
			return Reply{}, &decodeError{BadResponse, "model refused: " + snippet(*ch.Message.Refusal, 200)}
		}
		return Reply{}, &decodeError{BadResponse, "response has no choices[0].message.content"}
	}
	// The API always names why generation stopped. Without it the reply is unfinished: Ollama's
	// /v1, for one, answers finish_reason null (and no usage) when generation was cut short.
	if ch.FinishReason == nil || *ch.FinishReason == "" {
		return Reply{}, &decodeError{BadResponse, "response has no finish_reason: the generation did not complete"}
	}
	return Reply{Text: text, DoneReason: *ch.FinishReason, Usage: r.Usage.usage()}, nil
}

// openaiBody is what ctxc reads of a chat completion, whole (choices[0].message) or one chunk
// of a streamed one (choices[0].delta).
type openaiBody struct {
	Choices []struct {
		Message      *openaiText `json:"message"`
		Delta        *openaiText `json:"delta"`
		FinishReason *string     `json:"finish_reason"`
	} `json:"choices"`
	Usage *openaiUsage    `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type openaiText struct {
	Content json.RawMessage `json:"content"`
	Refusal *string         `json:"refusal"`
}

type openaiUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// usage is the reply's usage (zero when the server did not say).
func (u *openaiUsage) usage() Usage {
	if u == nil {
		return Usage{}
	}
	return Usage{PromptTokens: max(u.PromptTokens, 0), OutputTokens: max(u.CompletionTokens, 0)}
}

// inBandError is the error a 2xx reply carries in its body ({"error":...}), nil when none.
func inBandError(raw json.RawMessage) *decodeError {
	msg := errorField(raw)
	if msg == "" {
		return nil
	}
	kind := BadResponse
	if mentionsContextLength(msg) {
		kind = ContextLength
	}
	return &decodeError{kind, "error in response: " + snippet(msg, 300)}
}

func contentText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "" || p.Type == "text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), true
}

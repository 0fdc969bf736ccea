package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// Defaults of the Ollama provider.
const (
	// DefaultKeepAlive keeps the model loaded between the calls of one run (chunks, merges, the
	// next file of a batch) without pinning it in memory for long after.
	DefaultKeepAlive = 5 * time.Minute
	// defaultOllamaWindow is assumed when /api/show reports no context length: Ollama's own
	// default context on machines with less than 24 GiB of VRAM.
	defaultOllamaWindow = 4096
	// ollamaMaxRetries applies to dial errors, 429 and 502-504 (Ollama answers 503 when its
	// request queue is full).
	ollamaMaxRetries = 3
	// ollamaTemperature keeps summaries factual and repeatable without being fully greedy.
	ollamaTemperature = 0.2
)

// OllamaConfig configures the native Ollama provider.
type OllamaConfig struct {
	// Endpoint accepts the OLLAMA_HOST forms: "http://host:port[/path]", "host:port", "host",
	// ":port". Without a scheme the port defaults to 11434; an unspecified bind address
	// (0.0.0.0, ::) is replaced by loopback. Empty means DefaultOllamaURL.
	Endpoint string
	Model    string
	// Timeout bounds each HTTP call (0: RequestTimeout of its size; negative means none).
	Timeout time.Duration
	// HTTPClient is copied, never modified; nil means a fresh client.
	HTTPClient *http.Client
	// KeepAlive is sent as keep_alive (default DefaultKeepAlive).
	KeepAlive time.Duration
}

// Ollama is a Client of Ollama's native /api/chat. It is used instead of Ollama's
// OpenAI-compatible /v1 because only the native API accepts options.num_ctx and truncate:false,
// the two settings that make an over-long prompt an error instead of a silently cut transcript.
type Ollama struct {
	base      *url.URL
	endpoint  string
	model     string
	keepAlive time.Duration
	timeout   time.Duration // as configured: 0 bounds each request by its size
	client    *api.Client

	mu           sync.Mutex
	window       int // cached /api/show context length, 0 until known
	modelfileCtx int // num_ctx set by the Modelfile, informational
}

// NewOllama validates cfg and builds the provider. It does not contact the server.
func NewOllama(cfg OllamaConfig) (*Ollama, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("summarize: ollama: no model configured")
	}
	base, err := OllamaURL(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	keep := cfg.KeepAlive
	if keep == 0 {
		keep = DefaultKeepAlive
	}
	hc := newHTTPClient(cfg.HTTPClient, clientTimeout(cfg.Timeout))
	return &Ollama{
		base:      base,
		endpoint:  base.Redacted(),
		model:     strings.TrimSpace(cfg.Model),
		timeout:   cfg.Timeout,
		keepAlive: keep,
		client:    api.NewClient(base, hc),
	}, nil
}

// OllamaURL normalizes an Ollama endpoint the way the ollama CLI reads OLLAMA_HOST, and makes
// it connectable: "0.0.0.0:11434" (a common server-side setting) becomes 127.0.0.1:11434.
func OllamaURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultOllamaURL
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("summarize: ollama endpoint %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("summarize: ollama endpoint %q: invalid port %q", s, port)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if ip.To4() != nil {
			host = "127.0.0.1"
		} else {
			host = "::1"
		}
	}
	path = strings.TrimRight(path, "/")
	if path != "" {
		path = "/" + path
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}

// Provider implements Client.
func (o *Ollama) Provider() string { return "ollama" }

// Model implements Client.
func (o *Ollama) Model() string { return o.model }

// Endpoint is the normalized base URL (for messages).
func (o *Ollama) Endpoint() string { return o.endpoint }

// Window returns the model's trained context length from /api/show (model_info
// "<arch>.context_length"), cached after the first success. A Modelfile "num_ctx" parameter is
// only the default Ollama would use when a request sets none; ctxc always sends num_ctx, so the
// trained length is the real cap. When model_info has no length, the Modelfile num_ctx, else
// Ollama's 4096 default, is assumed.
func (o *Ollama) Window(ctx context.Context) (int, error) {
	o.mu.Lock()
	w := o.window
	o.mu.Unlock()
	if w > 0 {
		return w, nil
	}
	var show *api.ShowResponse
	ctx, cancel := requestContext(ctx, o.timeout, 0)
	defer cancel()
	err := withRetries(ctx, ollamaMaxRetries, func(ctx context.Context) attemptOutcome {
		ctx, hint := withHint(ctx)
		var err error
		show, err = o.client.Show(ctx, &api.ShowRequest{Model: o.model})
		return o.outcome(ctx, err, hint)
	})
	if err != nil {
		return 0, err
	}
	w, mfCtx := windowFromShow(show)
	o.mu.Lock()
	o.window, o.modelfileCtx = w, mfCtx
	o.mu.Unlock()
	return w, nil
}

// windowFromShow extracts the trained context length and the Modelfile num_ctx.
func windowFromShow(show *api.ShowResponse) (window, modelfileCtx int) {
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				modelfileCtx = n
			}
		}
	}
	// Several keys can end in .context_length (a projector, say); sort for a deterministic pick
	// and prefer "<general.architecture>.context_length".
	keys := make([]string, 0, len(show.ModelInfo))
	for k := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
		if n := toInt(show.ModelInfo[arch+".context_length"]); n > 0 {
			return n, modelfileCtx
		}
	}
	for _, k := range keys {
		if n := toInt(show.ModelInfo[k]); n > 0 {
			return n, modelfileCtx
		}
	}
	if modelfileCtx > 0 {
		return modelfileCtx, modelfileCtx
	}
	return defaultOllamaWindow, 0
}

func toInt(v any) int {
	switch n := v.(type) {
	case float64:
		if n > 0 && n < 1<<31 {
			return int(n)
		}
	case json.Number:
		if i, err := n.Int64(); err == nil && i > 0 && i < 1<<31 {
			return int(i)
		}
	case int:
		return n
	}
	return 0
}

// ModelfileNumCtx is the num_ctx the Modelfile sets (0 if none or not yet known). ctxc overrides
// it with a per-request num_ctx; it is reported only to explain the difference.
func (o *Ollama) ModelfileNumCtx() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.modelfileCtx
}

// SizesContext says that num_ctx is honoured, so retrying a ContextLength with a larger num_ctx
// can help.
func (o *Ollama) SizesContext() bool { return true }

// Complete implements Client with one /api/chat call (streamed only for opts.Received): num_ctx sized by the
// caller, truncate:false so an over-long prompt fails instead of losing its oldest part, thinking
// off (a reasoning model would otherwise spend the output budget before writing the reply).
// A reply whose prompt_eval_count reached num_ctx is reported as ContextLength: servers too old
// to know "truncate" cut the prompt silently, and that is the only trace it leaves.
func (o *Ollama) Complete(ctx context.Context, msgs []Message, opts Options) (Reply, error) {
	req := o.chatRequest(msgs, opts)
	var out Reply
	ctx, cancel := requestContext(ctx, o.timeout, contentChars(msgs))
	defer cancel()
	err := withRetries(ctx, ollamaMaxRetries, func(ctx context.Context) attemptOutcome {
		ctx, hint := withHint(ctx)
		var err error
		out, err = o.chat(ctx, req, opts.Received)
		return o.outcome(ctx, err, hint)
	})
	if err != nil {
		return Reply{}, err
	}
	if opts.NumCtx > 0 && out.Usage.PromptTokens >= opts.NumCtx {
		return out, &EndpointError{Provider: "ollama", Endpoint: o.endpoint, Kind: ContextLength,
			Msg: fmt.Sprintf("prompt_eval_count %d reached num_ctx %d: the server truncated the prompt", out.Usage.PromptTokens, opts.NumCtx)}
	}
	return out, nil
}

// chatRequest is the /api/chat body of one request.
func (o *Ollama) chatRequest(msgs []Message, opts Options) *api.ChatRequest {
	stream, truncate := opts.Received != nil, false
	messages := make([]api.Message, len(msgs))
	for i, m := range msgs {
		messages[i] = api.Message{Role: m.Role, Content: m.Content}
	}
	return &api.ChatRequest{
		Model:     o.model,
		Messages:  messages,
		Stream:    &stream,
		Truncate:  &truncate,
		Think:     &api.ThinkValue{Value: false},
		KeepAlive: &api.Duration{Duration: o.keepAlive},
		Options: map[string]any{
			"num_ctx":     opts.NumCtx,
			"num_predict": opts.MaxTokens,
			"temperature": ollamaTemperature,
		},
	}
}

// chat is one attempt: the reply read whole (or its pieces as they come, each counted to
// received), its size capped, done:true required.
func (o *Ollama) chat(ctx context.Context, req *api.ChatRequest, received func(int)) (Reply, error) {
	var text strings.Builder
	var out Reply
	done := false
	pieces := 0
	err := o.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if text.Len()+len(r.Message.Content) > maxResponseBytes {
			return errBodyTooLarge
		}
		text.WriteString(r.Message.Content)
		if received != nil && r.Message.Content != "" {
			pieces++
			received(pieces)
		}
		if r.Done {
			done = true
			out.Usage = Usage{PromptTokens: r.PromptEvalCount, OutputTokens: r.EvalCount}
			out.DoneReason = r.DoneReason
		}
		return nil
	})
	if err == nil && !done {
		err = errIncomplete
		if text.Len() > 0 {
			err = errCutShort
		}
	}
	out.Text = text.String()
	return out, err
}

// errIncomplete: a 200 reply that never said done:true (wrong shape, or no reply at all).
var errIncomplete = errors.New("reply ended without done:true")

// errCutShort: text came, then the reply ended without done:true. Ollama's server does this when
// the model repeats one token over and over (it aborts the prediction and sends what it had).
var errCutShort = fmt.Errorf("%w: the server cut the reply short (Ollama stops a model that repeats one token over and over)", errIncomplete)

// outcome turns one attempt's error into an EndpointError and decides whether to retry.
func (o *Ollama) outcome(ctx context.Context, err error, hint *retryHint) attemptOutcome {
	if err == nil {
		return attemptOutcome{}
	}
	if ctx.Err() != nil {
		return attemptOutcome{err: ctx.Err()}
	}
	if errors.Is(err, errIncomplete) && hint.status >= 400 {
		// An error status with an empty body (a proxy's bare 502, say) reaches us as "no reply".
		err = api.StatusError{StatusCode: hint.status, Status: http.StatusText(hint.status)}
	}
	e := &EndpointError{Provider: "ollama", Endpoint: o.endpoint, Err: err}
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case errors.As(err, &ae):
		e.Status, e.Kind, e.Msg = ae.StatusCode, Auth, "unauthorized"
		e.Err = nil
		return attemptOutcome{err: e}
	case errors.As(err, &se):
		return statusOutcome(e, se, hint)
	}
	if kind, msg, retry := transportKind(err); kind != 0 {
		e.Kind, e.Msg = kind, msg
		return attemptOutcome{err: e, retry: retry}
	}
	return replyOutcome(e, err)
}

// statusOutcome classifies an error status of the server, e being the error to fill.
func statusOutcome(e *EndpointError, se api.StatusError, hint *retryHint) attemptOutcome {
	e.Status, e.Msg, e.Err = se.StatusCode, snippet(se.ErrorMessage, 300), nil
	if e.Msg == "" {
		e.Msg = snippet(se.Status, 100)
	}
	switch code := se.StatusCode; {
	case mentionsContextLength(se.ErrorMessage):
		e.Kind = ContextLength
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Kind = Auth
	case code == http.StatusRequestEntityTooLarge:
		e.Kind = ContextLength
	case retryableStatus(code):
		e.Kind = Unavailable
		if hint.retryAfter != "" {
			e.Msg += " (Retry-After: " + snippet(hint.retryAfter, 40) + ")"
		}
		return attemptOutcome{err: e, retry: true, retryAfter: hint.retryAfter}
	case code >= 500:
		e.Kind = Unavailable
	default:
		e.Kind = Rejected
	}
	return attemptOutcome{err: e}
}

// replyOutcome classifies what remains once statuses and transport are ruled out: the client's
// JSON decoding errors, a non-JSON line, an oversized line (bufio.ErrTooLong), a missing done,
// or an in-band {"error": ...} on a 200 reply.
func replyOutcome(e *EndpointError, err error) attemptOutcome {
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		e.Kind, e.Msg = BadResponse, "response line too large"
	case mentionsContextLength(err.Error()):
		e.Kind, e.Msg = ContextLength, snippet(err.Error(), 300)
		e.Err = nil
	default:
		e.Kind, e.Msg = BadResponse, "unexpected response: "+snippet(err.Error(), 200)
		e.Err = nil
	}
	return attemptOutcome{err: e}
}

// Reachable reports whether an Ollama server answers GET /api/version at endpoint within about
// 1.5 s. Provider "auto" uses it to choose ollama without waiting for a full request timeout.
func Reachable(ctx context.Context, endpoint string) bool {
	base, err := OllamaURL(endpoint)
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	hc := newHTTPClient(nil, 0)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath("/api/version").String(), nil)
	if err != nil {
		return false
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	var v struct {
		Version *string `json:"version"`
	}
	return json.NewDecoder(resp.Body).Decode(&v) == nil && v.Version != nil
}

package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// ErrorKind classifies endpoint failures so the CLI can pick an exit code and Summarize can decide
// whether to escalate (try another prompt, then the extractive summarizer) or to stop.
type ErrorKind int

const (
	// Unavailable: the endpoint could not be reached or did not answer in time (connection refused,
	// DNS failure, timeout, 5xx after retries, 429 after retries). Never escalated to extractive:
	// the CLI exits 69 and writes nothing, so a cron run retries later with the real model.
	Unavailable ErrorKind = iota + 1
	// ContextLength: the server said the request does not fit its context (HTTP 400/413 "context
	// length", "maximum context", "too many tokens"), or Ollama's prompt_eval_count reached num_ctx
	// (silent truncation). Summarize re-chunks with a smaller budget, then escalates.
	ContextLength
	// BadResponse: the server answered, but not with a usable completion (garbage or wrong-shape
	// JSON, missing content, oversized body). Escalated.
	BadResponse
	// Auth: HTTP 401/403. A configuration problem, returned as is (not escalated).
	Auth
	// Rejected: any other refusal (4xx such as an unknown model, a refused cross-host redirect).
	// A configuration problem, returned as is (not escalated).
	Rejected
)

// String names the kind as it appears in messages and --json output.
func (k ErrorKind) String() string {
	switch k {
	case Unavailable:
		return "unavailable"
	case ContextLength:
		return "context_length"
	case BadResponse:
		return "bad_response"
	case Auth:
		return "auth"
	case Rejected:
		return "rejected"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// EndpointError is every failure of a Client that comes from the endpoint. Msg never contains
// the API key: providers redact it before building the error.
type EndpointError struct {
	Provider string // "ollama" or "openai"
	Endpoint string // base URL, with any userinfo password redacted
	Status   int    // HTTP status, 0 when no response was received
	Kind     ErrorKind
	Msg      string // human-readable cause, at most a few hundred characters of server text
	Err      error  // underlying error, if any (already redacted)
}

func (e *EndpointError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Endpoint != "" {
		b.WriteString(" at ")
		b.WriteString(e.Endpoint)
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil && (e.Msg == "" || !strings.Contains(e.Msg, e.Err.Error())) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *EndpointError) Unwrap() error { return e.Err }

// kindOf returns the ErrorKind of err, or 0 when err is not an EndpointError.
func kindOf(err error) ErrorKind {
	var ee *EndpointError
	if errors.As(err, &ee) {
		return ee.Kind
	}
	return 0
}

// IsKind reports whether err is (or wraps) an EndpointError of kind k.
func IsKind(err error, k ErrorKind) bool { return err != nil && kindOf(err) == k }

// redactedError hides a secret in an underlying error's text while keeping it unwrappable for
// errors.Is/As (net and url errors never carry headers, but a base URL could carry a key).
type redactedError struct {
	err    error
	secret string
}

func (r redactedError) Error() string { return redact(r.err.Error(), r.secret) }
func (r redactedError) Unwrap() error { return r.err }

func redactErr(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	return redactedError{err, secret}
}

// redact removes secret from s. Servers sometimes echo the key they rejected.
func redact(s, secret string) string {
	if secret == "" || len(secret) < 4 {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// snippet trims server text for an error message: one line, at most n bytes (rune-safe).
func snippet(s string, n int) string {
	s = strings.TrimSpace(s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// contextLengthHints are the phrases servers use when a prompt does not fit: Ollama ("the input
// length exceeds the context length", "the prompt is longer than the context length"), OpenAI
// ("maximum context length", code context_length_exceeded), vLLM, llama.cpp
// (exceed_context_size_error, "exceeds the available context size"), Anthropic-style gateways
// ("prompt is too long"), OpenRouter ("too many tokens").
var contextLengthHints = []string{
	"context length", "context_length", "context window", "context size", "context_size",
	"maximum context", "too many tokens", "prompt is too long", "prompt is longer",
	"input is too long", "exceeds the context", "exceeds the available context",
	"reduce the length", "too long for the model",
}

func mentionsContextLength(msg string) bool {
	m := strings.ToLower(msg)
	for _, h := range contextLengthHints {
		if strings.Contains(m, h) {
			return true
		}
	}
	return false
}

// transportKind classifies an error from http.Client.Do (no response received). retry is true
// only for dial failures: the request never reached the server, so sending it again is safe and
// cheap. Timeouts are not retried: a model that did not answer within the timeout will not answer
// faster the second time, and each attempt can take minutes on a CPU.
func transportKind(err error) (kind ErrorKind, msg string, retry bool) {
	var op *net.OpError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, errCrossHostRedirect):
		return Rejected, "refused a redirect to another host", false
	case errors.Is(err, errBodyTooLarge):
		return BadResponse, errBodyTooLarge.Error(), false
	case errors.As(err, &dns):
		return Unavailable, "cannot resolve host " + dns.Name, false
	case errors.As(err, &op) && op.Op == "dial":
		return Unavailable, "connection failed", true
	case errors.Is(err, syscall.ECONNREFUSED):
		return Unavailable, "connection refused", true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return Unavailable, "timed out", false
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return Unavailable, "connection closed by the server", false
	case errors.As(err, &op):
		return Unavailable, "network error", false
	}
	return 0, "", false
}

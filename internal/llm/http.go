package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// maxResponseBytes caps how much of a response body ctxc reads. A summary is a few KiB; anything
// near this size is a misbehaving server, and reading it whole could exhaust memory.
const maxResponseBytes = 8 << 20

var (
	errBodyTooLarge      = errors.New("response body exceeds 8 MiB")
	errCrossHostRedirect = errors.New("redirect to another host refused")
)

// sameHostRedirect is the CheckRedirect policy of both clients: follow at most 5 redirects, and
// only to the same scheme and host:port. A redirect to another host would send the prompt (the
// user's transcript) and, for the OpenAI client, possibly credentials somewhere the user did not
// configure.
func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	first := via[0].URL
	if req.URL.Host != first.Host || req.URL.Scheme != first.Scheme {
		return errCrossHostRedirect
	}
	return nil
}

// newHTTPClient copies base (or a zero client), applies the timeout when non-zero, installs the
// redirect policy and wraps the transport so that every body is size-capped and Retry-After is
// visible to the retry loop. The caller's client is never modified.
func newHTTPClient(base *http.Client, timeout time.Duration) *http.Client {
	var c http.Client
	if base != nil {
		c = *base
	}
	if timeout > 0 {
		c.Timeout = timeout
	}
	c.CheckRedirect = sameHostRedirect
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = guardTransport{rt}
	return &c
}

// guardTransport caps response bodies and records Retry-After into a hint carried by the
// request's context. The ollama/api client hides response headers, so this is how its retry loop
// learns what the server asked for.
type guardTransport struct{ base http.RoundTripper }

func (g guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if h, ok := req.Context().Value(hintKey{}).(*retryHint); ok {
		h.status = resp.StatusCode
		h.retryAfter = resp.Header.Get("Retry-After")
	}
	resp.Body = &limitedBody{rc: resp.Body, left: maxResponseBytes}
	return resp, nil
}

// limitedBody fails with errBodyTooLarge once more than the limit has been read, instead of
// silently stopping (io.LimitReader would make a huge reply look like a truncated valid one).
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One probe byte distinguishes "exactly at the limit" from "more to come".
		var one [1]byte
		n, err := l.rc.Read(one[:])
		if n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.rc.Read(p)
	l.left -= int64(n)
	return n, err
}

func (l *limitedBody) Close() error { return l.rc.Close() }

type hintKey struct{}

// retryHint receives the status and Retry-After header of the last response of one attempt.
type retryHint struct {
	status     int
	retryAfter string
}

func withHint(ctx context.Context) (context.Context, *retryHint) {
	h := &retryHint{}
	return context.WithValue(ctx, hintKey{}, h), h
}

// Without a configured timeout, a request is bounded in proportion to what the model must read:
// a fixed bound (ten minutes, as before) made a server that accepts and never answers a wait of
// ten minutes for a request of a few hundred tokens, and cut off a CPU model reading a large
// chunk honestly (docs/design.md §8).
const (
	// autoTimeoutBase is what any request gets: a model to load and start answering.
	autoTimeoutBase = 2 * time.Minute
	// autoTimeoutCharsPerMinute is the pace allowed for the rest: about 4,000 tokens of input
	// read, and the summary written, per minute (a small model on a laptop's CPU).
	autoTimeoutCharsPerMinute = 16_000
)

// RequestTimeout is the bound of one summarizer request of chars characters (its prompts) when
// no timeout is configured.
func RequestTimeout(chars int) time.Duration {
	return autoTimeoutBase + time.Duration(chars)*time.Minute/autoTimeoutCharsPerMinute
}

// requestContext bounds one request of chars characters: by RequestTimeout when the configured
// timeout is 0 (automatic); a fixed timeout bounds the HTTP client instead, and a negative one
// nothing.
func requestContext(ctx context.Context, configured time.Duration, chars int) (context.Context, context.CancelFunc) {
	if configured != 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, RequestTimeout(chars))
}

// clientTimeout is the http.Client's bound for a configured timeout: a positive one as it is;
// 0 (automatic, per request) and a negative one (none) leave the client unbounded.
func clientTimeout(t time.Duration) time.Duration {
	return max(t, 0)
}

package llm

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry policy, shared by both providers. Variables rather than constants so tests can shrink
// the waits; nothing else changes them.
var (
	// retryBase is the first backoff wait; it doubles per attempt (with jitter).
	retryBase = 500 * time.Millisecond
	// retryMaxWait caps one wait. A Retry-After longer than this is not waited for: the attempt
	// gives up at once (Unavailable), because a server asking for minutes is rate-limiting a
	// quota, and a cron run is better off failing fast and trying again at its next slot.
	retryMaxWait = 30 * time.Second
	// now is the clock used to interpret an HTTP-date Retry-After.
	now = time.Now
)

// retryableStatus reports the statuses worth retrying: 429 (rate limited) and the gateway
// family 502/503/504 (a proxy or a loading server). A plain 500 is not retried: it is usually a
// deterministic failure on this input (a crashed runner, an out-of-memory model) and repeating
// the same prompt repeats the failure; it is reported as Unavailable at once.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP-date.
func parseRetryAfter(h string) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if secs < 0 || secs > 1e6 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now())
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// backoff returns the wait before retry number attempt (0-based): base·2^attempt with "equal
// jitter" (half fixed, half random) so parallel chunk calls do not retry in lockstep, capped at
// retryMaxWait.
func backoff(attempt int) time.Duration {
	d := retryBase
	for i := 0; i < attempt && d < retryMaxWait; i++ {
		d *= 2
	}
	if d > retryMaxWait {
		d = retryMaxWait
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// attemptOutcome is what one try reports to withRetries.
type attemptOutcome struct {
	err        error
	retry      bool   // the failure is transient (dial error, 429, 502-504)
	retryAfter string // Retry-After header of the response, if any
}

// withRetries runs try up to 1+maxRetries times. It stops early on success, on a non-transient
// error, when ctx is done, or when the server asks for a wait longer than retryMaxWait. The
// retry boundary is "before a response was accepted": try never retries a half-read reply.
func withRetries(ctx context.Context, maxRetries int, try func(ctx context.Context) attemptOutcome) error {
	for attempt := 0; ; attempt++ {
		out := try(ctx)
		if out.err == nil || !out.retry || attempt >= maxRetries {
			return out.err
		}
		wait := backoff(attempt)
		if d, ok := parseRetryAfter(out.retryAfter); ok {
			if d > retryMaxWait {
				return out.err
			}
			wait = d
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package llm

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Waiting is what a watcher hears while a request to a model is in flight: who is asked,
// for how long it has not answered, and, when the reply is streamed, how many of its tokens
// have arrived. The last report of a request has Done set.
type Waiting struct {
	Provider, Model, Endpoint string
	Elapsed                   time.Duration
	Tokens                    int // pieces of the reply received (streamed replies only)
	Done                      bool
}

// WatchOptions say how requests are watched.
type WatchOptions struct {
	Interval time.Duration // how often Tick hears of a request in flight
	Tick     func(Waiting) // may be called from several goroutines at once (requests in parallel)
	// Tokens asks for replies streamed, so that Tick hears the tokens received; without it a
	// request is sent as it would be unwatched.
	Tokens bool
}

// Watch returns c with every request watched: while one is in flight (a completion, or the
// question of the model's window), o.Tick hears of it every o.Interval, and once more when it
// ends. The watched Client behaves as c in every other way.
func Watch(c Client, o WatchOptions) Client {
	w := &watched{Client: c, o: o}
	if e, ok := c.(interface{ Endpoint() string }); ok {
		w.endpoint = e.Endpoint()
	}
	return w
}

type watched struct {
	Client
	endpoint string
	o        WatchOptions
}

// SizesContext is the watched Client's.
func (w *watched) SizesContext() bool { return SizesContext(w.Client) }

// Endpoint is the watched Client's endpoint ("" when it has none).
func (w *watched) Endpoint() string { return w.endpoint }

// Window implements Client.
func (w *watched) Window(ctx context.Context) (int, error) {
	defer w.watch(nil)()
	return w.Client.Window(ctx)
}

// Complete implements Client.
func (w *watched) Complete(ctx context.Context, msgs []Message, opts Options) (Reply, error) {
	var tokens atomic.Int64
	if w.o.Tokens && opts.Received == nil {
		opts.Received = func(n int) { tokens.Store(int64(n)) }
	}
	defer w.watch(&tokens)()
	return w.Client.Complete(ctx, msgs, opts)
}

// watch starts reporting one request (tokens: its tokens received so far, nil for none) and
// returns what ends it.
func (w *watched) watch(tokens *atomic.Int64) (end func()) {
	start := time.Now()
	report := func(done bool) {
		ev := Waiting{Provider: w.Provider(), Model: w.Model(), Endpoint: w.endpoint,
			Elapsed: time.Since(start), Done: done}
		if tokens != nil {
			ev.Tokens = int(tokens.Load())
		}
		w.o.Tick(ev)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(w.o.Interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				report(false)
			}
		}
	}()
	return func() {
		close(stop)
		wg.Wait()
		report(true)
	}
}

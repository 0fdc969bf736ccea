package llm

import (
	"context"
	"sync"
	"time"
)

// Waiting is what a watcher hears while a request to a model is in flight: who is asked,
// and for how long it has not answered. The last report of a request has Done set.
type Waiting struct {
	Provider, Model, Endpoint string
	Elapsed                   time.Duration
	Done                      bool
}

// Watch returns c with every request watched: while one is in flight (a completion, or the
// question of the model's window), tick hears of it every interval, and once more when it ends.
// tick may be called from several goroutines at once (requests in parallel). The watched
// Client behaves as c in every other way.
func Watch(c Client, interval time.Duration, tick func(Waiting)) Client {
	w := &watched{Client: c, interval: interval, tick: tick}
	if e, ok := c.(interface{ Endpoint() string }); ok {
		w.endpoint = e.Endpoint()
	}
	return w
}

type watched struct {
	Client
	endpoint string
	interval time.Duration
	tick     func(Waiting)
}

// SizesContext is the watched Client's.
func (w *watched) SizesContext() bool { return SizesContext(w.Client) }

// Endpoint is the watched Client's endpoint ("" when it has none).
func (w *watched) Endpoint() string { return w.endpoint }

// Window implements Client.
func (w *watched) Window(ctx context.Context) (int, error) {
	defer w.watch()()
	return w.Client.Window(ctx)
}

// Complete implements Client.
func (w *watched) Complete(ctx context.Context, msgs []Message, opts Options) (Reply, error) {
	defer w.watch()()
	return w.Client.Complete(ctx, msgs, opts)
}

// watch starts reporting one request and returns what ends it.
func (w *watched) watch() (end func()) {
	start := time.Now()
	report := func(done bool) {
		w.tick(Waiting{Provider: w.Provider(), Model: w.Model(), Endpoint: w.endpoint,
			Elapsed: time.Since(start), Done: done})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(w.interval)
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

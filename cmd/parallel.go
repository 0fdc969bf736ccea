package cmd

import "context"

// inOrder runs fn on the indexes 0..n-1 with jobs workers and yields the results in index order,
// as soon as each is ready and all before it have been yielded: a command run over many files
// reads them at once and still reports them in the order given. An interrupt stops the feeding;
// the results yielded so far stay in order.
func inOrder[T any](ctx context.Context, n, jobs int, fn func(i int) T) <-chan T {
	jobs = max(1, min(jobs, n))
	results := make([]chan T, n)
	for i := range results {
		results[i] = make(chan T, 1)
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range n {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range jobs {
		go func() {
			for i := range next {
				results[i] <- fn(i)
			}
		}()
	}
	out := make(chan T)
	go func() {
		defer close(out)
		for i := range results {
			select {
			case r := <-results[i]:
				out <- r
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

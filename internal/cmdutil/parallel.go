package cmdutil

import "context"

// InOrder runs fn on the indexes 0..n-1 with jobs workers and yields the results in index order,
// as soon as each is ready and all before it have been yielded: a command run over many files
// reads them at once and still reports them in the order given, whatever the number of jobs.
// An interrupt stops the feeding: the results of the indexes already given to a worker are
// still yielded, in order (the work they stand for was done), and no other.
func InOrder[T any](ctx context.Context, n, jobs int, fn func(i int) T) <-chan T {
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
				for _, r := range results[i:] {
					close(r) // never given to a worker: nothing to yield
				}
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
			r, ok := <-results[i]
			if !ok {
				return
			}
			out <- r
		}
	}()
	return out
}

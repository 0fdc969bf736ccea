package cmdutil

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// TestInOrderYieldsEveryStartedResult: after an interrupt, every index given to a worker is
// yielded (a compaction done is reported, not counted as untouched), in order, and no other.
func TestInOrderYieldsEveryStartedResult(t *testing.T) {
	for range 200 {
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var ran []int
		var got []int
		for r := range InOrder(ctx, 8, 3, func(i int) int {
			mu.Lock()
			ran = append(ran, i)
			mu.Unlock()
			if i == 2 {
				cancel()
			}
			return i
		}) {
			got = append(got, r)
		}
		cancel()
		mu.Lock()
		slices.Sort(ran)
		if !slices.Equal(got, ran) {
			t.Fatalf("yielded %v, ran %v", got, ran)
		}
		mu.Unlock()
	}
}

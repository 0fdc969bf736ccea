package index

import (
	"sync"
	"sync/atomic"

	"github.com/ctxc/ctxc/internal/openclawstore"
)

// prestat states the indexed files below the folders grep's walker walks, while it walks them:
// the walk waits on a system call per folder, the freshness check on one per file, and the two
// then run on both cores instead of one after the other. A file found by the walk that the
// index does not have, or that was not stated here, is stated by Candidates.
type prestat struct {
	view    *manifestView
	claimed []atomic.Bool // by file of the manifest: a goroutine took it
	stated  []bool        // by file: st and err are its stat
	st      []fileStat
	err     []error
	wg      sync.WaitGroup
}

func newPrestat(v *manifestView) *prestat {
	n := len(v.files)
	return &prestat{view: v, claimed: make([]atomic.Bool, n), stated: make([]bool, n), st: make([]fileStat, n), err: make([]error, n)}
}

// start states the files below the folder abs on two goroutines.
func (p *prestat) start(abs string) {
	lo, hi := p.view.filesUnder(abs)
	statOn(&p.wg, 2, lo, hi, func(s *statter, n int) {
		path := p.view.pathAt(n)
		if openclawstore.IsSessionName(path) || p.claimed[n].Swap(true) {
			return // (a session of an OpenClaw store is stated through its store, later)
		}
		p.st[n], p.err[n] = s.stat(path)
		p.stated[n] = true
	})
}

// wait waits for the stats started; they are then read without locks.
func (p *prestat) wait() { p.wg.Wait() }

// statNow gives the stats of files (absolute paths, with their entries): those the walk's
// goroutines took, and the others taken now.
func statNow(files []string, entries []indexedState, pre *prestat) ([]fileStat, []error) {
	if pre == nil {
		return statAll(files)
	}
	pre.wait()
	stats, errs := make([]fileStat, len(files)), make([]error, len(files))
	var rest []int
	for i, e := range entries {
		if e.found && pre.stated[e.entry] {
			stats[i], errs[i] = pre.st[e.entry], pre.err[e.entry]
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) == 0 {
		return stats, errs
	}
	paths := make([]string, len(rest))
	for j, i := range rest {
		paths[j] = files[i]
	}
	st, er := statAll(paths)
	for j, i := range rest {
		stats[i], errs[i] = st[j], er[j]
	}
	return stats, errs
}

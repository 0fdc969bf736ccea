package index

import (
	"sync"
	"sync/atomic"

	"github.com/ctxc/ctxc/internal/sessionstore"
)

// prestat states the indexed files below the folders grep's walker walks, while it walks them:
// the walk waits on a system call per folder, the freshness check on one per file, and the two
// then run on both cores instead of one after the other. Each folder's files are stated by one
// goroutine, from the first, which leaves a core to the walk; when the walk is done, its
// goroutine states what is left, from the last (wait). A file found by the walk that the index
// does not have, or that was not stated here, is stated by Candidates.
type prestat struct {
	view    *manifestView
	claimed []atomic.Bool // by file of the manifest: a goroutine took it
	stated  []bool        // by file: st and err are its stat
	st      []fileStat
	err     []error
	ranges  [][2]int    // the files of each folder started, from lo to hi (exclusive)
	stop    atomic.Bool // Close: take no more files
	wg      sync.WaitGroup
}

func newPrestat(v *manifestView) *prestat {
	n := len(v.files)
	return &prestat{view: v, claimed: make([]atomic.Bool, n), stated: make([]bool, n), st: make([]fileStat, n), err: make([]error, n)}
}

// start states the files below the folder abs on a goroutine.
func (p *prestat) start(abs string) {
	lo, hi := p.view.filesUnder(abs)
	p.ranges = append(p.ranges, [2]int{lo, hi})
	statOn(&p.wg, 1, lo, hi, p.stat)
}

// stat states the manifest's file n, unless another goroutine took it.
func (p *prestat) stat(s *statter, n int) {
	if p.stop.Load() || p.claimed[n].Load() {
		return
	}
	path := p.view.pathAt(n)
	if sessionstore.IsSessionName(path) || p.claimed[n].Swap(true) {
		return // (a session of an OpenClaw store is stated through its store, later)
	}
	p.st[n], p.err[n] = s.stat(path)
	p.stated[n] = true
}

// wait states the files no goroutine took yet, from the last one, while the goroutines go on
// from the first, and waits for them; the stats are then read without locks.
func (p *prestat) wait() {
	var s statter
	for i := len(p.ranges) - 1; i >= 0; i-- {
		for n := p.ranges[i][1] - 1; n >= p.ranges[i][0]; n-- {
			p.stat(&s, n)
		}
	}
	p.wg.Wait()
}

// abandon stops the goroutines and waits for them (the manifest's mapping is then released).
func (p *prestat) abandon() {
	p.stop.Store(true)
	p.wg.Wait()
}

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

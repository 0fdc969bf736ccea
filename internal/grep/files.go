package grep

import "github.com/ctxc/ctxc/internal/transcript"

// aloneSize is the size from which Files searches a file on its own, its hits given to emit as
// they come: File already searches such a file on every core, and keeping its hits until the
// files before it are done would cost memory.
const aloneSize = 64 << 20

// Files searches files in the order of the list, jobs at once: an archive of sessions is many
// small files, each searched by one core. search searches one file, giving its hits to the emit
// it is passed (File, or a caller's reading of standard input). The hits of a file searched
// beside others are kept until the files before it are done, and then given to emit, so that
// they come in the order of the list, and each file's in the order search gave them; at most
// jobs files are searched at once, and aheadPerJob × jobs are in flight or waiting. "-"
// (standard input), files of aloneSize or more, files that cannot be stat'ed and, with jobs of
// 1 or less, every file are searched by the calling goroutine, in turn, their hits given to
// emit as they come. failed is told, in the order of the list, of each file whose search failed
// or whose hits emit refused (the file's later hits are then dropped); Files returns when every
// file is done. sizes may give files' sizes (the index knows them): the others are stated.
func Files(files []string, sizes map[string]int64, jobs int, search func(path string, emit func(Hit) error) error, emit func(Hit) error, failed func(path string, err error)) {
	s := scheduler{files: files, sizes: sizes, search: search}
	s.plan(jobs)
	stop := make(chan struct{})
	defer close(stop)
	go s.start(stop)
	for i, path := range files {
		var err error
		if s.results[i] == nil {
			err = search(path, emit)
		} else {
			err = s.deliver(i, emit)
		}
		if err != nil {
			failed(path, err)
		}
	}
}

// scheduler is Files' state: which files are searched beside others, and their results.
type scheduler struct {
	files  []string
	sizes  map[string]int64
	search func(path string, emit func(Hit) error) error
	// results[i]: the hits of files[i], when it is searched beside others; nil: it is searched
	// by the caller, in turn.
	results []chan fileHits
	tokens  chan struct{} // files in flight or waiting to be given to emit
	running chan struct{} // files being searched
}

// aheadPerJob is how many files per job may be searched, or wait with their hits, while an
// earlier file is still being searched: a file slower than the next ones then holds up no core
// (with one token per job, the others waited for it, idle, a quarter of a query's time).
const aheadPerJob = 4

// fileHits is what the search of one file found: its hits, and how it ended.
type fileHits struct {
	hits []Hit
	err  error
}

// plan decides which files are searched beside others: with more than one job, every file
// under aloneSize but standard input.
func (s *scheduler) plan(jobs int) {
	s.results = make([]chan fileHits, len(s.files))
	s.tokens = make(chan struct{}, max(1, jobs*aheadPerJob))
	s.running = make(chan struct{}, max(1, jobs))
	if jobs <= 1 {
		return
	}
	for i, path := range s.files {
		if path == "-" {
			continue
		}
		if size, ok := s.sizes[path]; ok && size < aloneSize {
			s.results[i] = make(chan fileHits, 1)
		} else if info, err := transcript.Stat(path); err == nil && info.Size() < aloneSize {
			s.results[i] = make(chan fileHits, 1) // (an error is the search's to say)
		}
	}
}

// start searches the files planned to be searched beside others, in the order of the list,
// each once a token is free (given back when its hits are delivered), until stop is closed.
func (s *scheduler) start(stop <-chan struct{}) {
	for i, ch := range s.results {
		if ch == nil {
			continue
		}
		select {
		case s.tokens <- struct{}{}:
		case <-stop:
			return
		}
		go func() {
			var r fileHits
			s.running <- struct{}{}
			r.err = s.search(s.files[i], func(h Hit) error {
				r.hits = append(r.hits, h)
				return nil
			})
			<-s.running
			ch <- r
		}()
	}
}

// deliver waits for the search of files[i] and gives its hits to emit; it returns the error
// that ended the search or emit's refusal.
func (s *scheduler) deliver(i int, emit func(Hit) error) error {
	r := <-s.results[i]
	<-s.tokens
	for _, h := range r.hits {
		if err := emit(h); err != nil {
			return err
		}
	}
	return r.err
}

package index

import (
	"container/heap"
	"encoding/binary"
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// Query is a ranked search: its words and the filters of its results.
type Query struct {
	Text    string
	Agent   string          // a format name (claude-code, codex, pi, ...); "": any
	Project string          // a substring of the project folder; "": any
	Since   time.Time       // messages at or after; zero: any
	Until   time.Time       // messages before; zero: any
	Roles   map[string]bool // nil: any
	Paths   map[string]bool // only these files (absolute paths); nil: any
	Limit   int
}

// Result is one message found, best first.
type Result struct {
	Path    string    `json:"path"`
	Line    int       `json:"line"`
	Session string    `json:"session,omitempty"`
	Agent   string    `json:"agent"`
	Project string    `json:"project,omitempty"`
	Time    time.Time `json:"time,omitzero"`
	Role    string    `json:"role"`
	Score   float64   `json:"score"`
	Snippet string    `json:"snippet"`
	Resume  string    `json:"resume,omitempty"`
	offset  int64
}

// BM25's parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Search ranks the messages of the index's live files by BM25 over the query's terms and
// returns the best Limit that pass the filters. A message's score sums, over the query terms
// it holds, idf × tf·(k1+1) / (tf + k1·(1−b+b·len/avglen)).
func (r *Reader) Search(q Query) []Result {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil
	}
	_, avg := r.corpus()
	found := r.lookup(terms)
	top := &resultHeap{}
	limit := max(q.Limit, 1)
	r.scoreSegments(found, avg, func(s *segment, sc *scorer) { r.keepBest(s, sc, q, limit, top) })
	out := make([]Result, top.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(top).(Result)
	}
	return out
}

// corpus gives the number of documents and their average length.
func (r *Reader) corpus() (n float64, avg float64) {
	var length uint64
	for _, s := range r.segments() {
		n += float64(s.Docs)
		length += s.Length
	}
	if n == 0 {
		return 0, 1
	}
	return n, math.Max(float64(length)/n, 1)
}

// queryTerm is one query term in one segment: where its postings are, and the term's idf
// over every segment.
type queryTerm struct {
	idf  float64
	post postingsAt
}

// lookup finds each term once in each segment: found[segment] lists the terms it holds, with
// their idf, BM25's inverse document frequency over the whole index. It reads the term
// tables only; rankSegment reads the postings, one segment at a time.
func (r *Reader) lookup(terms []string) [][]queryTerm {
	n, _ := r.corpus()
	dfs := make([]float64, len(terms))
	type hit struct {
		term int
		at   postingsAt
	}
	hits := make([][]hit, len(r.segs))
	for i, s := range r.segs {
		// One segment at a time, in the Reader's buffer for the segment's term sample.
		s.sample = r.sample[:0]
		for ti, t := range terms {
			if d, at, ok := s.termPostings(t); ok {
				dfs[ti] += float64(d)
				hits[i] = append(hits[i], hit{ti, at})
			}
		}
		r.sample, s.sample = s.sample, nil
	}
	found := make([][]queryTerm, len(r.segs))
	for i := range r.segs {
		for _, h := range hits[i] {
			idf := math.Log(1 + (n-dfs[h.term]+0.5)/(dfs[h.term]+0.5))
			found[i] = append(found[i], queryTerm{idf, h.at})
		}
	}
	return found
}

// scoreSegments scores the segments on as many goroutines as there are cores (a common
// word's postings are most of a query's time), and hands each segment's scores to keep, in
// the segments' order: the results, ties among them too, are the same on any machine. A
// segment is scored into one of a few scorers, which keep reuses and returns.
func (r *Reader) scoreSegments(found [][]queryTerm, avg float64, keep func(*segment, *scorer)) {
	n := len(r.segs)
	workers := min(runtime.GOMAXPROCS(0), n)
	scored := make([]chan *scorer, n)
	for i := range scored {
		scored[i] = make(chan *scorer, 1)
	}
	// A worker takes a scorer before it claims the next segment: the first segment not yet
	// kept is then always being scored, or about to be.
	free := make(chan *scorer, workers+1)
	for range workers + 1 {
		free <- &scorer{}
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for sc := range free {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				sc.score(r.segs[i], found[i], avg)
				scored[i] <- sc
			}
		}()
	}
	for i, s := range r.segs {
		sc := <-scored[i]
		keep(s, sc)
		sc.clear()
		free <- sc
	}
	close(free)
}

// keepBest keeps the best documents of one segment's scores that pass the filters.
func (r *Reader) keepBest(s *segment, sc *scorer, q Query, limit int, top *resultHeap) {
	for _, d := range sc.touched {
		v := float64(sc.scores[d])
		if top.Len() >= limit && v <= (*top)[0].Score {
			continue
		}
		dc, ok := s.doc(int(d))
		if !ok {
			continue
		}
		res, ok := r.result(dc, q)
		if !ok {
			continue
		}
		res.Score = v
		heap.Push(top, res)
		if top.Len() > limit {
			heap.Pop(top)
		}
	}
}

// scorer holds the scores of one segment's documents, and the buffers that read them; a
// search reuses it from segment to segment.
type scorer struct {
	scores  []float32 // by document; zero where touched has none
	touched []int32   // the documents with a score
	lens    []byte
	posts   []byte
}

// clear zeroes the scores, for the next segment.
func (sc *scorer) clear() {
	for _, d := range sc.touched {
		sc.scores[d] = 0
	}
	sc.touched = sc.touched[:0]
}

// score sums the BM25 scores of the terms' postings in one segment. A term's share of a
// document's score is w·tf / (tf + k1·(1−b) + k1·b·len/avglen), w = idf·(k1+1): one division
// a posting. A damaged segment's documents are not ranked.
func (sc *scorer) score(s *segment, terms []queryTerm, avg float64) {
	if len(terms) == 0 {
		return
	}
	lens := s.lengths(sc.lens)
	if len(lens) != 2*s.nDocs {
		return
	}
	sc.lens = lens
	n := s.nDocs
	if cap(sc.scores) < n {
		sc.scores = make([]float32, n, n+n/2)
	}
	scores, touched := sc.scores[:n], sc.touched[:0]
	base, perLen := bm25K1*(1-bm25B), bm25K1*bm25B/avg
	for _, t := range terms {
		post, ok := s.postings(sc.posts, t.post)
		if !ok {
			continue
		}
		sc.posts = post
		w := t.idf * (bm25K1 + 1)
		d := -1
		for i := 0; i < len(post); {
			var delta, tf uint64
			if b := post[i]; b < 0x80 { // nearly every delta and frequency is one byte
				delta, i = uint64(b), i+1
			} else if v, k := binary.Uvarint(post[i:]); k > 0 {
				delta, i = v, i+k
			} else {
				break
			}
			if i >= len(post) || delta > uint64(n) { // (the first delta is its document's index + 1)
				break
			}
			if b := post[i]; b < 0x80 {
				tf, i = uint64(b), i+1
			} else if v, k := binary.Uvarint(post[i:]); k > 0 {
				tf, i = v, i+k
			} else {
				break
			}
			d += int(delta)
			if d >= n {
				break
			}
			ftf := float64(tf)
			norm := base + perLen*float64(binary.LittleEndian.Uint16(lens[2*d:]))
			if scores[d] == 0 {
				touched = append(touched, int32(d))
			}
			scores[d] += float32(w * ftf / (ftf + norm))
		}
	}
	sc.scores, sc.touched = scores, touched
}

// result describes a document, or false when it is dead or filtered out.
func (r *Reader) result(d doc, q Query) (Result, bool) {
	path, e, live := r.entry(d.file)
	if !live {
		return Result{}, false
	}
	role := roleNames[0]
	if int(d.role) < len(roleNames) {
		role = roleNames[d.role]
	}
	at := time.Time{}
	if d.time > 0 {
		at = time.Unix(int64(d.time), 0).UTC()
	}
	if !q.wants(path, e, role, at) {
		return Result{}, false
	}
	return Result{Path: path, Line: int(d.line), Session: e.Session, Agent: e.Format, Project: e.Project,
		Time: at, Role: role, offset: int64(d.offset)}, true
}

// wants applies the query's filters.
func (q Query) wants(path string, e *FileEntry, role string, at time.Time) bool {
	if q.Agent != "" && e.Format != q.Agent || q.Roles != nil && !q.Roles[role] || q.Paths != nil && !q.Paths[path] {
		return false
	}
	if q.Project != "" && !containsFold(e.Project, q.Project) {
		return false
	}
	if at.IsZero() && (!q.Since.IsZero() || !q.Until.IsZero()) {
		return false
	}
	return (q.Since.IsZero() || !at.Before(q.Since)) && (q.Until.IsZero() || at.Before(q.Until))
}

// resultHeap is a min-heap of results by score: its root is the worst kept.
type resultHeap []Result

func (h resultHeap) Len() int { return len(h) }
func (h resultHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	if h[i].Path != h[j].Path {
		return h[i].Path > h[j].Path
	}
	return h[i].Line > h[j].Line
}
func (h resultHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *resultHeap) Push(x any)   { *h = append(*h, x.(Result)) }
func (h *resultHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

package index

import (
	"container/heap"
	"encoding/binary"
	"math"
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
	for i, s := range r.segs {
		r.rankSegment(s, found[i], avg, q, limit, top)
	}
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

// rankSegment scores the documents of one segment and keeps the best that pass the filters.
func (r *Reader) rankSegment(s *segment, terms []queryTerm, avg float64, q Query, limit int, top *resultHeap) {
	if len(terms) == 0 {
		return
	}
	lens := s.lengths(r.lens)
	if len(lens) != 2*s.nDocs {
		return // a damaged segment: its documents are not ranked
	}
	r.lens = lens
	scores, touched := r.score(s, terms, lens, avg)
	for _, d := range touched {
		sc := float64(scores[d])
		scores[d] = 0 // the buffer is clean for the next segment
		if top.Len() >= limit && sc <= (*top)[0].Score {
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
		res.Score = sc
		heap.Push(top, res)
		if top.Len() > limit {
			heap.Pop(top)
		}
	}
}

// score sums the BM25 scores of the terms' postings in one segment; touched lists the
// documents with a score. Both are the Reader's buffers, kept between segments (rankSegment
// zeroes the scores it touched). A term's share of a document's score is
// w·tf / (tf + k1·(1−b) + k1·b·len/avglen), w = idf·(k1+1): one division a posting.
func (r *Reader) score(s *segment, terms []queryTerm, lens []byte, avg float64) (scores []float32, touched []int32) {
	n := len(lens) / 2
	if cap(r.scores) < n {
		r.scores = make([]float32, n, n+n/2)
	}
	scores, touched = r.scores[:n], r.touched[:0]
	defer func() { r.touched = touched }()
	base, perLen := bm25K1*(1-bm25B), bm25K1*bm25B/avg
	for _, t := range terms {
		post, ok := s.postings(r.posts, t.post)
		if !ok {
			continue
		}
		r.posts = post
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
	return scores, touched
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

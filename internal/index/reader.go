package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Reader is an open index: its manifest and segments, as they were when it was opened (an
// update running meanwhile writes new segments and a new manifest; the ones open stay valid).
// A search reads the manifest in pieces (the entries of its results); grep and the walker
// read its bytes whole (Load).
type Reader struct {
	Dir  string
	file *manifestFile // nil when the manifest was read whole at Open
	m    *Manifest     // the whole manifest, when this process decoded it already (an update)
	view *manifestView // its bytes whole, for grep (Load)
	// unmap releases the manifest's mapping, if Load mapped it: the view's strings point
	// into it, so nothing of the view outlives Close.
	unmap  func()
	pre    *prestat // the stats its walker started (Walker)
	answer *asking  // the segments' answer for a literal, being found (Ask)
	segs   []*segment
	ids    map[uint32]string // with m: the current id of each file (documents of other ids are dead)

	sample []byte // the buffer of a search's lookups, from segment to segment
	// and that grep's candidates reuse.
	table, buf, placeBuf []byte
	cur, next            []uint32
}

// Open opens the index in dir. Its manifest is read whole only when this process read it
// already (an update just before); else in pieces, as a search needs it.
//
// An update that merged segments removes them once its manifest names the merged one: a
// segment gone between reading the manifest and opening it means the manifest was just
// replaced, and Open reads the new one (a few times at most; none of this waits).
func Open(dir string) (*Reader, error) {
	for attempt := 1; ; attempt++ {
		r, err := open(dir)
		if err == nil || attempt == 8 || !errors.Is(err, os.ErrNotExist) {
			return r, err
		}
	}
}

func open(dir string) (*Reader, error) {
	r := &Reader{Dir: dir}
	if err := r.openManifest(); err != nil {
		return nil, err
	}
	for _, s := range r.segments() {
		seg, err := openSegment(filepath.Join(dir, s.Name))
		if err != nil {
			r.Close()
			return nil, &IndexError{dir, err}
		}
		r.segs = append(r.segs, seg)
	}
	return r, nil
}

func (r *Reader) openManifest() error {
	path := filepath.Join(r.Dir, manifestName)
	info, err := os.Stat(path)
	if err != nil {
		return noManifest(r.Dir, err)
	}
	if m := cachedManifest(path, info); m != nil {
		r.m, r.ids = m, m.byID()
		return nil
	}
	mf, err := openManifestFile(path)
	if err != nil {
		return &IndexError{r.Dir, fmt.Errorf("%s: %w", manifestName, err)}
	}
	if err := checkSchema(r.Dir, mf.head.Schema); err != nil {
		mf.Close()
		return err
	}
	r.file = mf
	return nil
}

// segments lists the index's segments.
func (r *Reader) segments() []SegmentInfo {
	if r.m != nil {
		return r.m.Segments
	}
	return r.file.head.Segments
}

// Load reads the manifest's bytes whole, if Open read it in pieces: grep's candidates need
// every file's entry, and its walker every folder's listing.
func (r *Reader) Load() error {
	if r.view != nil {
		return nil
	}
	data, unmap, err := r.manifestBytes()
	if err != nil {
		return err
	}
	v, err := newManifestView(r.Dir, data)
	if err != nil {
		if unmap != nil {
			unmap()
		}
		return err
	}
	r.view, r.unmap = v, unmap
	return nil
}

// manifestBytes gives the manifest's bytes: those it was decoded from, or its file mapped
// (unmap releases it), or read.
func (r *Reader) manifestBytes() (data []byte, unmap func(), err error) {
	if r.m != nil {
		return r.m.raw, nil, nil
	}
	if data, unmap, ok := mapWhole(r.file.f, r.file.info.Size()); ok {
		return data, unmap, nil
	}
	data, err = r.file.bytes()
	return data, nil, err
}

// entry finds the file of a document's id: its path and entry; false when the document is
// dead, or the manifest cannot tell.
func (r *Reader) entry(id uint32) (string, *FileEntry, bool) {
	if r.m != nil {
		path, live := r.ids[id]
		return path, r.m.Files[path], live
	}
	path, e, live, err := r.file.entry(id)
	return path, e, live && err == nil
}

// Walker walks folders with the listings this index kept (none when its manifest cannot be
// read whole). It keeps no listings of its own (Seen): a query writes no index.
func (r *Reader) Walker() *Walker {
	w := &Walker{start: time.Now(), discard: true}
	if r.Load() == nil {
		if r.pre == nil {
			r.pre = newPrestat(r.view)
		}
		w.view, w.pre = r.view, r.pre
	}
	return w
}

// Close closes the segments and the manifest.
func (r *Reader) Close() {
	if r.file != nil {
		r.file.Close()
	}
	if r.pre != nil {
		r.pre.abandon() // (its goroutines read paths in the mapping)
	}
	if r.answer != nil {
		<-r.answer.done // (it reads the segments)
	}
	if r.unmap != nil {
		r.view = nil
		r.unmap()
		r.unmap = nil
	}
	for _, s := range r.segs {
		s.Close()
	}
	r.segs = nil
}

// States of a file that grep reads instead of asking the index.
const (
	StateStale   = "changed since it was indexed"
	StateMissing = "not indexed"
)

// Candidates says which of files grep must read for pattern p, and which parts of them. Every
// line that matches holds p's prefilter literal in its raw bytes (ignoring ASCII case as p
// does), unless it spells one of the literal's characters as an escape, or the match meets a
// text the format's reader adds (p.MayMatchOutside). So a fresh indexed file is read only when
// its indexed bytes hold every trigram of the literal, or escape one of its characters, or its
// format may match outside them; a pattern without a literal reads every file. Files that
// changed or are not indexed are read too, and listed in stale with their state. read keeps
// the order of files; parts[i] says what to read of read[i] (grep.FileRanges): the blocks of
// lines that hold every trigram of the literal (blockRanges), or the whole file.
func (r *Reader) Candidates(files []string, p *grep.Pattern) (read []string, parts []grep.Ranges, stale, states []string) {
	if r.Load() != nil {
		return files, make([]grep.Ranges, len(files)), nil, nil // (grep checks Load first, and says why it reads every file)
	}
	ask := r.asked(p) // (asked before the walk, by grep: the answer is ready or on its way)
	abss := absPaths(files)
	entries := r.view.states(abss)
	stats, errs := statNow(abss, entries, r.pre)
	<-ask.done
	hold := ask.hold
	r.answer = nil // (taken: blockRanges merges its blocks in place; a next Candidates asks again)

	outside := map[string]bool{} // p.MayMatchOutside, by format
	for i, path := range files {
		e := &entries[i]
		state := e.stateNow(stats[i], errs[i])
		mayOutside, ok := outside[e.format]
		if !ok && state == "" {
			mayOutside = p.MayMatchOutside(transcript.Format(e.format))
			outside[e.format] = mayOutside
		}
		switch {
		case state != "":
			read, parts = append(read, path), append(parts, grep.Ranges{})
			stale, states = append(stale, path), append(states, state)
		case hold == nil || e.scan || !e.compressed && e.done < e.size || mayOutside:
			// (done < size: a last line still being written, which the index has not got)
			read, parts = append(read, path), append(parts, whole(e))
		case hold[e.id] != nil:
			read, parts = append(read, path), append(parts, blockRanges(path, e, hold[e.id]))
		}
	}
	return read, parts, stale, states
}

// asking is the segments' answer for a literal: the blocks that hold all its trigrams, by file
// (nil: the index cannot tell; every file is read), once done is closed.
type asking struct {
	lit  string
	done chan struct{}
	hold map[uint32]*held
}

// Ask starts asking the segments, on a goroutine, which blocks hold p's literal, for the next
// Candidates of p: grep asks before it walks its folders, and the answer, which waits on a
// few hundred reads of the segments, is found while the walk waits on its stats.
func (r *Reader) Ask(p *grep.Pattern) { r.asked(p) }

// asked is the asking for p's literal: the one under way, or a new one.
func (r *Reader) asked(p *grep.Pattern) *asking {
	lit := string(p.Literal())
	if r.answer != nil {
		if r.answer.lit == lit {
			return r.answer
		}
		<-r.answer.done // (one asking at a time: they share the reader's buffers)
	}
	a := &asking{lit: lit, done: make(chan struct{})}
	r.answer = a
	go func() {
		defer close(a.done)
		if len(lit) >= 3 {
			a.hold = r.holding([]byte(lit))
		}
	}()
	return a
}

// whole is what grep reads of a fresh file read whole: all of it, and its size when it is a
// plain file (grep then need not state it again).
func whole(e *indexedState) grep.Ranges {
	if e.compressed {
		return grep.Ranges{}
	}
	return grep.Ranges{Size: e.size}
}

// blockRanges is what grep reads of a fresh file (path) that h holds: only the blocks that hold
// the literal when that gives every hit of reading it whole, else (no parts) all of it. The
// whole file is read when it escapes one of the literal's characters (any line may match), when
// it is compressed (no offsets into its stored bytes) or a session of an OpenClaw store (its
// text is exported from the store at each read), and when it is in a generic format and holds
// a compaction record: a ctxc marker's tail_lines make the lines after it copies, which grep
// knows only from reading the marker.
func blockRanges(path string, e *indexedState, h *held) grep.Ranges {
	format := transcript.Format(e.format)
	if h.escaped || e.compressed || !format.Native() && h.compactions || len(h.blocks) == 0 ||
		sessionstore.IsSessionName(path) {
		return whole(e)
	}
	sort.Slice(h.blocks, func(i, j int) bool { return h.blocks[i].From < h.blocks[j].From })
	out := h.blocks[:1]
	for _, b := range h.blocks[1:] {
		last := &out[len(out)-1]
		if b.From <= last.To { // the next block of lines: one read
			last.To = max(last.To, b.To)
			continue
		}
		out = append(out, b)
	}
	return grep.Ranges{Size: e.size, Parts: out, Format: format, NoCompactions: !h.compactions}
}

// fileStat is what an update and a query compare with a file's entry.
type fileStat struct {
	size, mtime int64 // mtime: ns since the epoch
}

// statAll stats every file (transcript's rules: a session of an OpenClaw store is its
// store's), on statWorkers goroutines: a stat is a system call, and an archive has thousands of
// files.
func statAll(paths []string) ([]fileStat, []error) {
	stats, errs := make([]fileStat, len(paths)), make([]error, len(paths))
	var wg sync.WaitGroup
	statOn(&wg, statWorkers, 0, len(paths), func(s *statter, i int) {
		stats[i], errs[i] = s.file(paths[i])
	})
	wg.Wait()
	return stats, errs
}

// statOn calls stat for every i from lo to hi (exclusive) on workers goroutines, each with a
// statter of its own, added to wg: the caller waits on it.
func statOn(wg *sync.WaitGroup, workers, lo, hi int, stat func(s *statter, i int)) {
	var next atomic.Int64
	next.Store(int64(lo))
	for range min(workers, hi-lo) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s statter
			for i := int(next.Add(1) - 1); i < hi; i = int(next.Add(1) - 1) {
				stat(&s, i)
			}
		}()
	}
}

// file stats one file.
func (s *statter) file(path string) (fileStat, error) {
	if sessionstore.IsSessionName(path) {
		info, err := transcript.Stat(path)
		if err != nil {
			return fileStat{}, err
		}
		return fileStat{info.Size(), info.ModTime().UnixNano()}, nil
	}
	return s.stat(path)
}

// statWorkers is how many files are stated at once.
const statWorkers = 4

// stateNow says why the index cannot answer for a file of this entry ("": it can), from the
// file's stat now (st; err: why it could not be stated).
func (e *indexedState) stateNow(st fileStat, err error) string {
	if !e.found {
		return StateMissing
	}
	if err != nil || st.size != e.size || st.mtime != e.mtime {
		return StateStale
	}
	return ""
}

// held is what the index says of a file for a literal: the places of its blocks that hold
// every trigram of the literal, and whether it spells one of the literal's characters as an
// escape (then any of its lines may match).
type held struct {
	blocks  []grep.Range
	escaped bool
	// compactions: a segment saw a compaction record in the file's lines (a ctxc marker in a
	// generic format, whose tail_lines make later lines copies).
	compactions bool
}

// holding lists the files (ids) of which one block of lines holds every trigram of lit, with
// those blocks, and those that spell one of lit's characters as an escape, and says which of
// them hold a compaction record. nil: a segment could not be read (grep reads every file).
func (r *Reader) holding(lit []byte) map[uint32]*held {
	tris := litTrigrams(lit)
	hold := map[uint32]*held{}
	var chars escapeMask
	for _, c := range lit {
		chars.set(lower(c))
	}
	var compactions []uint32
	for _, s := range r.segs {
		r.holdBlocks(s, tris, hold)
		table, ok := s.escapeTable(r.buf)
		if ok {
			r.buf = table
		}
		for i := 0; i+fileSize <= len(table); i += fileSize {
			id, m := escapeAt(table, i)
			if m.chars()[0]&chars[0] != 0 || m.chars()[1]&chars[1] != 0 {
				heldIn(hold, id).escaped = true
			}
			if m.compactions() {
				compactions = append(compactions, id)
			}
		}
		if s.failed() != nil {
			return nil // a segment that could not be read answers nothing: grep reads every file
		}
	}
	for _, id := range compactions {
		if h := hold[id]; h != nil {
			h.compactions = true
		}
	}
	return hold
}

// holdBlocks adds to hold the blocks of s that hold all of tris, under their files.
func (r *Reader) holdBlocks(s *segment, tris []uint32, hold map[uint32]*held) {
	blocks := r.intersect(s, tris)
	if len(blocks) == 0 {
		return
	}
	places, ok := s.places(r.placeBuf, blocks[0], blocks[len(blocks)-1])
	if !ok {
		return
	}
	r.placeBuf = places
	for _, block := range blocks {
		id, ok := s.blockFile(block)
		if !ok {
			continue
		}
		h := heldIn(hold, id)
		pl, ok := placeAt(places, int(block-blocks[0]))
		if !ok {
			s.fail(errBadSegment) // a place that cannot be a block's: holding answers nothing
			return
		}
		h.blocks = append(h.blocks, grep.Range{From: pl.from, To: pl.to, Line: int(pl.line)})
	}
}

// heldIn is hold's record of file id, added when it has none.
func heldIn(hold map[uint32]*held, id uint32) *held {
	h := hold[id]
	if h == nil {
		h = &held{}
		hold[id] = h
	}
	return h
}

// intersect gives the blocks of s that can hold all of tris: the lists of the trigrams,
// shortest first, each narrowing the blocks kept so far, until the next list is so much longer
// than the blocks kept (denseList) that reading it would cost more than reading the few blocks
// it could drop: grep reads the blocks and finds the lines that match, so blocks kept in
// excess cost time, never a hit. The result lives in the Reader's buffers until the next call.
func (r *Reader) intersect(s *segment, tris []uint32) []uint32 {
	table, ok := s.trigrams(r.table)
	if !ok {
		return nil
	}
	r.table = table
	type span struct{ from, to uint64 }
	lists := make([]span, 0, len(tris))
	for _, t := range tris {
		from, to, ok := s.trigramList(table, t)
		if !ok {
			return nil // a trigram no block of s holds
		}
		lists = append(lists, span{from, to})
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i].to-lists[i].from < lists[j].to-lists[j].from })
	cur := r.cur[:0]
	for i, l := range lists {
		if i > 0 && denseList(l.to-l.from, len(cur)) {
			break
		}
		var next []uint32
		r.buf, next = s.trigramBlocks(r.buf, l.from, l.to, r.next[:0])
		r.next = next
		if i == 0 {
			cur = append(cur, next...)
		} else {
			cur = intersectSorted(cur, next)
		}
		if len(cur) == 0 {
			break
		}
	}
	r.cur = cur
	return cur
}

// denseList reports whether a trigram's list of n bytes is too long to be worth reading to
// narrow kept blocks: a list costs a read and a decode of each byte (about 3 ns; a list of a
// trigram found in most blocks is about one byte a block), a block kept in excess a read of
// about 16 KB and its scan (about 10 µs). The lists of the common trigrams of a rare word
// (thousands of bytes in each segment) were nine tenths of what a query read of the index.
func denseList(n uint64, kept int) bool {
	return n > 32*uint64(kept)+256
}

// intersectSorted keeps the values of a (ascending) that b (ascending) holds, in a's memory.
func intersectSorted(a, b []uint32) []uint32 {
	out := a[:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

package index

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Reader is an open index: its manifest and segments, as they were when it was opened (an
// update running meanwhile writes new segments and a new manifest; the ones open stay valid).
type Reader struct {
	Dir  string
	m    *Manifest
	segs []*segment
	ids  map[uint32]string // the current id of each file: documents of other ids are dead

	// Buffers a search reuses from segment to segment.
	scores []float32
	lens   []uint16
	raw    []byte
}

// Open opens the index in dir.
func Open(dir string) (*Reader, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	r := &Reader{Dir: dir, m: m, ids: m.byID()}
	for _, s := range m.Segments {
		seg, err := openSegment(filepath.Join(dir, s.Name))
		if err != nil {
			r.Close()
			return nil, &IndexError{dir, err}
		}
		r.segs = append(r.segs, seg)
	}
	return r, nil
}

// Walker walks folders with the listings this index kept.
func (r *Reader) Walker() *Walker {
	return &Walker{Known: r.m.Dirs, Seen: map[string]*Listing{}, start: time.Now()}
}

// Close closes the segments.
func (r *Reader) Close() {
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

// Candidates says which of files grep must read for pattern p. Every line that matches holds
// p's prefilter literal in its raw bytes (ignoring ASCII case as p does), unless it spells one
// of the literal's characters as an escape, or the match meets a text the format's reader adds
// (p.MayMatchOutside). So a fresh indexed file is read only when its indexed bytes hold every
// trigram of the literal, or escape one of its characters, or its format may match outside
// them; a pattern without a literal reads every file. Files that changed or are not indexed
// are read too, and listed in stale with their state. read keeps the order of files.
func (r *Reader) Candidates(files []string, p *grep.Pattern) (read, stale, states []string) {
	lit := p.Literal()
	var hold map[uint32]bool
	if len(lit) >= 3 {
		hold = r.holding(lit)
	}
	entries, states0 := r.freshAll(files)
	for i, path := range files {
		e, state := entries[i], states0[i]
		switch {
		case state != "":
			read = append(read, path)
			stale, states = append(stale, path), append(states, state)
		case hold == nil || e.Scan || !e.Compressed && e.Done < e.Size || hold[e.ID] ||
			p.MayMatchOutside(transcript.Format(e.Format)):
			// (Done < Size: a last line still being written, which the index has not got)
			read = append(read, path)
		}
	}
	return read, stale, states
}

// freshAll is fresh of every file.
func (r *Reader) freshAll(files []string) ([]*FileEntry, []string) {
	entries, states := make([]*FileEntry, len(files)), make([]string, len(files))
	abss := make([]string, len(files))
	for i, path := range files {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = ""
		}
		abss[i] = abs
	}
	infos, errs := statAll(abss)
	for i, abs := range abss {
		entries[i], states[i] = r.fresh(abs, infos[i], errs[i])
	}
	return entries, states
}

// statAll stats every file (transcript.Stat), on statWorkers goroutines: a stat is a system
// call, and an archive has thousands of files.
func statAll(paths []string) ([]os.FileInfo, []error) {
	infos, errs := make([]os.FileInfo, len(paths)), make([]error, len(paths))
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(statWorkers, len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(paths); i = int(next.Add(1) - 1) {
				infos[i], errs[i] = transcript.Stat(paths[i])
			}
		}()
	}
	wg.Wait()
	return infos, errs
}

// statWorkers is how many files are stated at once.
const statWorkers = 4

// fresh finds a file's entry (abs: its absolute path, "" when it has none; info and err: its
// stat); state says why the index cannot answer for it ("": it can).
func (r *Reader) fresh(abs string, info os.FileInfo, err error) (*FileEntry, string) {
	e := r.m.Files[abs]
	if abs == "" || e == nil {
		return nil, StateMissing
	}
	if err != nil || info.Size() != e.Size || info.ModTime().UnixNano() != e.MTime {
		return nil, StateStale
	}
	return e, ""
}

// holding lists the files (ids) of which one block of lines holds every trigram of lit, or
// that spell one of lit's characters as an escape.
func (r *Reader) holding(lit []byte) map[uint32]bool {
	tris := litTrigrams(lit)
	hold := map[uint32]bool{}
	var chars escapeMask
	for _, c := range lit {
		chars.set(lower(c))
	}
	for _, s := range r.segs {
		for block := range intersect(s, tris) {
			if id, ok := s.blockFile(block); ok {
				hold[id] = true
			}
		}
		for id, m := range s.escapes() {
			if m[0]&chars[0] != 0 || m[1]&chars[1] != 0 {
				hold[id] = true
			}
		}
		if s.failed() != nil {
			return nil // a segment that could not be read answers nothing: grep reads every file
		}
	}
	return hold
}

// intersect gives the blocks of s that hold all of tris.
func intersect(s *segment, tris []uint32) map[uint32]bool {
	table, ok := s.trigrams()
	if !ok {
		return nil
	}
	var cur map[uint32]bool
	for _, t := range tris {
		ids := s.trigramBlocks(table, t)
		next := make(map[uint32]bool, len(ids))
		for _, id := range ids {
			if cur == nil || cur[id] {
				next[id] = true
			}
		}
		cur = next
		if len(cur) == 0 {
			break
		}
	}
	return cur
}

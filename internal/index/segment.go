package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// A segment file, all integers little-endian:
//
//	magic "CTXCSEG5"
//	docs     nDocs × docSize:  file u32, line u64, offset u64, time u32 (unix s), role<<28|length u32
//	terms    (nTerms+1) × 16:  string offset u32, df u32, postings offset u64 (the last: ends)
//	strings  the terms' bytes, sorted
//	postings per term: (doc delta uvarint, tf uvarint)...
//	tris     (nTris+1) × 12:   trigram u32, postings offset u64 (the last: ends)
//	tripost  per trigram: block deltas (uvarint)...
//	files    nFiles × 20:      file u32, escape mask 2 × u64 (its bit 0: a compaction record)
//	blocks   nBlocks × 4:      the file of each block
//	places   nBlocks × 24:     where each block is in its file: the byte offset of its first line
//	         u64, the offset just past its last line's newline u64, and the 1-based number of
//	         its first line u64 (blank lines count; those between blocks are in none)
//	sample   every sampleStride-th term: (nSample+1) × u32 offsets, then their bytes
//	lengths  nDocs × u16:      each doc's length, at most 65,535
//	footer   17 × u64: offsets of docs, terms, strings, postings, tris, tripost, files, blocks,
//	         places, sample, lengths, end; then nDocs, nTerms, nTris, nFiles, nBlocks
//
// A query reads a segment with a few small reads (pread), never the whole file: the sample
// names the run of sampleStride terms where a term can be, so a lookup reads that run's entries
// and strings and then the term's postings; the lengths give BM25 every document's length in
// one read. Grep reads the places of the blocks that hold its literal, and then only those
// blocks of a session.
const segMagic = "CTXCSEG4"

const (
	docSize      = 28
	termSize     = 16
	triSize      = 12
	fileSize     = 20
	placeSize    = 24
	footerWords  = 17
	lengthBits   = 28 // a doc's length (terms) in the low bits of its last word; its role above
	maxLength    = 1<<lengthBits - 1
	sampleStride = 128       // terms per entry of the sample
	maxNorm      = 1<<16 - 1 // the largest length the lengths section holds
)

// Roles of documents, as grep names them.
var roleNames = []string{"", "user", "assistant", "tool", "system", "summary"}

func roleCode(role string) uint32 {
	for i, r := range roleNames {
		if r == role {
			return uint32(i)
		}
	}
	return 0
}

// doc is one message of a segment.
type doc struct {
	file   uint32
	line   uint64 // 1-based, in its file
	offset uint64 // the byte offset of its line in the (decompressed) file
	time   uint32
	role   uint32
	length uint32 // its terms
}

type segmentFooter struct {
	docs, terms, strs, posts, tris, triPost, files, blocks, places, sample, lengths, end uint64
	nDocs, nTerms, nTris, nFiles, nBlocks                                                uint64
}

func (f *segmentFooter) words() []uint64 {
	return []uint64{f.docs, f.terms, f.strs, f.posts, f.tris, f.triPost, f.files, f.blocks, f.places, f.sample,
		f.lengths, f.end, f.nDocs, f.nTerms, f.nTris, f.nFiles, f.nBlocks}
}

func (f *segmentFooter) nSample() uint64 { return (f.nTerms + sampleStride - 1) / sampleStride }

// segment is an open segment file, read on demand. A read that fails (an I/O error, or a
// damaged section) is remembered: failed then says that the segment's answers may be short.
type segment struct {
	name  string
	file  io.ReaderAt
	close func() error
	f     segmentFooter
	nDocs int
	err   error

	sample     []byte // the sample section, read at the first lookup (its bytes, when not empty)
	blockFiles []byte // the blocks section, read at the first blockFile
}

var errBadSegment = errors.New("not a ctxc index segment, or a damaged one")

// openSegment opens a segment file and checks its layout.
func openSegment(path string) (*segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		var s *segment
		if s, err = newSegment(path, f, info.Size()); err == nil {
			s.close = f.Close
			return s, nil
		}
	}
	f.Close()
	return nil, fmt.Errorf("%s: %w", path, err)
}

// newSegment reads the footer of a segment of size bytes.
func newSegment(name string, r io.ReaderAt, size int64) (*segment, error) {
	s := &segment{name: name, file: r, close: func() error { return nil }}
	if size < int64(len(segMagic)+footerWords*8) {
		return nil, errBadSegment
	}
	head := make([]byte, len(segMagic))
	tail := make([]byte, footerWords*8)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil {
		return nil, err
	}
	if string(head) != segMagic {
		return nil, errBadSegment
	}
	if err := s.parseFooter(tail, uint64(size)-uint64(len(tail))); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *segment) parseFooter(tail []byte, at uint64) error {
	w := make([]uint64, footerWords)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(tail[8*i:])
	}
	f := segmentFooter{docs: w[0], terms: w[1], strs: w[2], posts: w[3], tris: w[4], triPost: w[5], files: w[6],
		blocks: w[7], places: w[8], sample: w[9], lengths: w[10], end: w[11], nDocs: w[12], nTerms: w[13],
		nTris: w[14], nFiles: w[15], nBlocks: w[16]}
	const big = 1 << 40 // no count of a sane segment comes near: products below cannot overflow
	ok := f.nDocs < big && f.nTerms < big && f.nTris < big && f.nFiles < big && f.nBlocks < big &&
		f.docs == uint64(len(segMagic)) && f.docs+f.nDocs*docSize == f.terms &&
		f.terms+(f.nTerms+1)*termSize == f.strs && f.strs <= f.posts && f.posts <= f.tris &&
		f.tris+(f.nTris+1)*triSize == f.triPost && f.triPost <= f.files &&
		f.files+f.nFiles*fileSize == f.blocks && f.blocks+f.nBlocks*4 == f.places &&
		f.places+f.nBlocks*placeSize == f.sample &&
		f.sample+(f.nSample()+1)*4 <= f.lengths && f.lengths+f.nDocs*2 == f.end && f.end == at
	if !ok {
		return errBadSegment
	}
	s.f, s.nDocs = f, int(f.nDocs)
	return nil
}

func (s *segment) Close() { s.close() }

// failed is the first read of the segment that failed, if any.
func (s *segment) failed() error { return s.err }

// read reads the bytes [from, to) of section [base, limit) into buf (grown as needed); false
// when they lie outside the section or cannot be read.
func (s *segment) read(buf []byte, base, limit, from, to uint64) ([]byte, bool) {
	if from > to || to > limit-base {
		s.fail(errBadSegment)
		return nil, false
	}
	n := int(to - from)
	if cap(buf) < n {
		buf = make([]byte, n, n+n/2) // room for a larger section of the next segment
	}
	buf = buf[:n]
	if _, err := s.file.ReadAt(buf, int64(base+from)); err != nil {
		s.fail(err)
		return nil, false
	}
	return buf, true
}

func (s *segment) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("%s: %w", s.name, err)
	}
}

func decodeDoc(b []byte) doc {
	rl := binary.LittleEndian.Uint32(b[24:])
	return doc{file: binary.LittleEndian.Uint32(b), line: binary.LittleEndian.Uint64(b[4:]),
		offset: binary.LittleEndian.Uint64(b[12:]), time: binary.LittleEndian.Uint32(b[20:]),
		role: rl >> lengthBits, length: rl & maxLength}
}

// doc reads document i (ok false when it cannot be read).
func (s *segment) doc(i int) (doc, bool) {
	at := uint64(i) * docSize
	b, ok := s.read(nil, s.f.docs, s.f.terms, at, at+docSize)
	if !ok {
		return doc{}, false
	}
	return decodeDoc(b), true
}

// lengths reads every document's length (capped at maxNorm, 2 bytes little-endian each) into
// buf; nil when the section cannot be read.
func (s *segment) lengths(buf []byte) []byte {
	raw, ok := s.read(buf, s.f.lengths, s.f.end, 0, s.f.nDocs*2)
	if !ok {
		return nil
	}
	return raw
}

// term finds a term's document frequency and postings.
func (s *segment) term(t string) (df uint32, post []byte, ok bool) {
	df, p, ok := s.termPostings(t)
	if !ok {
		return 0, nil, false
	}
	post, ok = s.postings(nil, p)
	return df, post, ok
}

// postingsAt is where a term's postings lie in the postings section.
type postingsAt struct{ from, to uint64 }

// postings reads a term's postings into buf.
func (s *segment) postings(buf []byte, p postingsAt) ([]byte, bool) {
	return s.read(buf, s.f.posts, s.f.tris, p.from, p.to)
}

// termPostings finds a term's document frequency and where its postings are: it finds the
// term's run of sampleStride terms in the sample, then the term in the run.
func (s *segment) termPostings(t string) (df uint32, p postingsAt, ok bool) {
	if s.f.nTerms == 0 || !s.readSample() {
		return 0, p, false
	}
	ns := int(s.f.nSample())
	k := sort.Search(ns, func(i int) bool { return s.sampleAt(i) > t }) - 1
	if k < 0 {
		return 0, p, false
	}
	lo := uint64(k) * sampleStride
	hi := min(lo+sampleStride, s.f.nTerms)
	entries, ok := s.read(nil, s.f.terms, s.f.strs, lo*termSize, (hi+1)*termSize)
	if !ok {
		return 0, p, false
	}
	entry := func(i uint64) (so uint32, df uint32, po uint64) {
		b := entries[(i-lo)*termSize:]
		return binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint64(b[8:])
	}
	first, _, _ := entry(lo)
	last, _, _ := entry(hi)
	strs, ok := s.read(nil, s.f.strs, s.f.posts, uint64(first), uint64(last))
	if !ok {
		return 0, p, false
	}
	for i := lo; i < hi; i++ {
		so, df, po := entry(i)
		so2, _, po2 := entry(i + 1)
		if so < first || so2 < so || uint64(so2-first) > uint64(len(strs)) {
			s.fail(errBadSegment)
			return 0, p, false
		}
		if string(strs[so-first:so2-first]) == t {
			return df, postingsAt{po, po2}, true
		}
	}
	return 0, p, false
}

// readSample reads the sample section once, into s.sample's memory if it has room (a
// Reader lends a buffer: see lookup).
func (s *segment) readSample() bool {
	if len(s.sample) == 0 {
		b, ok := s.read(s.sample, s.f.sample, s.f.lengths, 0, s.f.lengths-s.f.sample)
		if !ok {
			return false
		}
		s.sample = b
	}
	return true
}

// sampleAt is the i-th term of the sample ("" when damaged).
func (s *segment) sampleAt(i int) string {
	ns := int(s.f.nSample())
	offs := s.sample[:(ns+1)*4]
	from, to := binary.LittleEndian.Uint32(offs[i*4:]), binary.LittleEndian.Uint32(offs[i*4+4:])
	strs := s.sample[(ns+1)*4:]
	if from > to || int(to) > len(strs) {
		s.fail(errBadSegment)
		return ""
	}
	return string(strs[from:to])
}

// blockFile is the file of block i (ok false when it cannot be read).
func (s *segment) blockFile(i uint32) (uint32, bool) {
	if s.blockFiles == nil {
		b, ok := s.read(nil, s.f.blocks, s.f.places, 0, s.f.nBlocks*4)
		if !ok {
			return 0, false
		}
		s.blockFiles = b
	}
	if uint64(i) >= s.f.nBlocks {
		return 0, false
	}
	return binary.LittleEndian.Uint32(s.blockFiles[i*4:]), true
}

// blockPlace is where a block is in its file: its bytes [from, to), which are whole lines, the
// first of them line number line (1-based).
type blockPlace struct {
	from, to int64
	line     uint64
}

// places reads the places of blocks first to last (inclusive) into buf; placeAt decodes them.
func (s *segment) places(buf []byte, first, last uint32) ([]byte, bool) {
	if first > last {
		return buf[:0], true
	}
	return s.read(buf, s.f.places, s.f.sample, uint64(first)*placeSize, (uint64(last)+1)*placeSize)
}

// placeAt decodes the i-th place of b (places' bytes). A place that cannot be a block's (it
// ends before it starts) is ok false.
func placeAt(b []byte, i int) (blockPlace, bool) {
	e := b[i*placeSize:]
	p := blockPlace{from: int64(binary.LittleEndian.Uint64(e)), to: int64(binary.LittleEndian.Uint64(e[8:])),
		line: binary.LittleEndian.Uint64(e[16:])}
	return p, p.from >= 0 && p.to > p.from && p.line > 0 && p.line < 1<<62
}

// trigrams reads the trigram table into buf, for trigramList.
func (s *segment) trigrams(buf []byte) ([]byte, bool) {
	return s.read(buf, s.f.tris, s.f.triPost, 0, (s.f.nTris+1)*triSize)
}

// trigramList finds where trigram t's list of blocks lies in the segment's tripost section;
// table is the segment's trigram table (trigrams). ok is false when the segment lacks t.
func (s *segment) trigramList(table []byte, t uint32) (from, to uint64, ok bool) {
	n := int(s.f.nTris)
	if len(table) < (n+1)*triSize {
		return 0, 0, false
	}
	at := func(i int) (uint32, uint64) {
		b := table[i*triSize:]
		return binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[4:])
	}
	i := sort.Search(n, func(i int) bool { v, _ := at(i); return v >= t })
	if i == n {
		return 0, 0, false
	}
	v, from := at(i)
	if v != t {
		return 0, 0, false
	}
	_, to = at(i + 1)
	return from, to, true
}

// trigramBlocks reads the list of blocks [from, to) of the tripost section (trigramList) and
// appends its blocks (ascending) to out, reading through buf.
func (s *segment) trigramBlocks(buf []byte, from, to uint64, out []uint32) ([]byte, []uint32) {
	list, ok := s.read(buf, s.f.triPost, s.f.files, from, to)
	if !ok {
		return buf, out
	}
	var id uint32
	for b := list; len(b) > 0; {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			s.fail(errBadSegment)
			break
		}
		id += uint32(d)
		out = append(out, id)
		b = b[k:]
	}
	return list, out
}

// escapeTable reads the files' table into buf (reused when large enough): fileSize bytes a
// file, each file's id and escape mask (escapeAt).
func (s *segment) escapeTable(buf []byte) ([]byte, bool) {
	return s.read(buf, s.f.files, s.f.blocks, 0, s.f.nFiles*fileSize)
}

// escapeAt decodes the file at byte i of the files' table.
func escapeAt(b []byte, i int) (uint32, escapeMask) {
	return binary.LittleEndian.Uint32(b[i:]), escapeMask{binary.LittleEndian.Uint64(b[i+4:]), binary.LittleEndian.Uint64(b[i+12:])}
}

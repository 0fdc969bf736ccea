package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
)

// A segment file, all integers little-endian:
//
//	magic "CTXCSEG1"
//	docs     nDocs × docSize:  file u32, line u32, offset u64, time u32 (unix s), role<<28|length u32
//	terms    (nTerms+1) × 16:  string offset u32, df u32, postings offset u64 (the last: ends)
//	strings  the terms' bytes, sorted
//	postings per term: (doc delta uvarint, tf uvarint)...
//	tris     (nTris+1) × 12:   trigram u32, postings offset u64 (the last: ends)
//	tripost  per trigram: block deltas (uvarint)...
//	files    nFiles × 20:      file u32, escape mask 2 × u64
//	blocks   nBlocks × 4:      the file of each block
//	footer   14 × u64: offsets of docs, terms, strings, postings, tris, tripost, files, blocks,
//	         end; then nDocs, nTerms, nTris, nFiles, nBlocks
const segMagic = "CTXCSEG1"

const (
	docSize     = 24
	termSize    = 16
	triSize     = 12
	fileSize    = 20
	footerWords = 14
	lengthBits  = 28 // a doc's length (terms) in the low bits of its last word; its role above
	maxLength   = 1<<lengthBits - 1
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
	line   uint32
	offset uint64 // the byte offset of its line in the (decompressed) file
	time   uint32
	role   uint32
	length uint32 // its terms
}

type segmentFooter struct {
	docs, terms, strs, posts, tris, triPost, files, blocks, end uint64
	nDocs, nTerms, nTris, nFiles, nBlocks                       uint64
}

// segment is an open segment: its bytes (mapped) and where its sections are.
type segment struct {
	name  string
	data  []byte
	close func()
	f     segmentFooter
	nDocs int
}

var errBadSegment = errors.New("not a ctxc index segment, or a damaged one")

// openSegment maps a segment file and checks its layout.
func openSegment(path string) (*segment, error) {
	data, closeFn, err := mapPath(path)
	if err != nil {
		return nil, err
	}
	s := &segment{name: path, data: data, close: closeFn}
	if err := s.parseFooter(); err != nil {
		closeFn()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func (s *segment) parseFooter() error {
	d := s.data
	if len(d) < len(segMagic)+footerWords*8 || string(d[:len(segMagic)]) != segMagic {
		return errBadSegment
	}
	w := make([]uint64, footerWords)
	at := len(d) - footerWords*8
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(d[at+8*i:])
	}
	f := segmentFooter{docs: w[0], terms: w[1], strs: w[2], posts: w[3], tris: w[4], triPost: w[5], files: w[6],
		blocks: w[7], end: w[8], nDocs: w[9], nTerms: w[10], nTris: w[11], nFiles: w[12], nBlocks: w[13]}
	ok := f.docs == uint64(len(segMagic)) && f.docs+f.nDocs*docSize == f.terms &&
		f.terms+(f.nTerms+1)*termSize == f.strs && f.strs <= f.posts && f.posts <= f.tris &&
		f.tris+(f.nTris+1)*triSize == f.triPost && f.triPost <= f.files &&
		f.files+f.nFiles*fileSize == f.blocks && f.blocks+f.nBlocks*4 == f.end && f.end == uint64(at)
	if !ok {
		return errBadSegment
	}
	s.f, s.nDocs = f, int(f.nDocs)
	return nil
}

func (s *segment) Close() { s.close() }

func (s *segment) doc(i int) doc {
	b := s.data[s.f.docs+uint64(i)*docSize:]
	rl := binary.LittleEndian.Uint32(b[20:])
	return doc{file: binary.LittleEndian.Uint32(b), line: binary.LittleEndian.Uint32(b[4:]),
		offset: binary.LittleEndian.Uint64(b[8:]), time: binary.LittleEndian.Uint32(b[16:]),
		role: rl >> lengthBits, length: rl & maxLength}
}

// docLength is doc i's length without decoding the rest.
func (s *segment) docLength(i int) uint32 {
	return binary.LittleEndian.Uint32(s.data[s.f.docs+uint64(i)*docSize+20:]) & maxLength
}

func (s *segment) termEntry(i int) (str []byte, df uint32, post []byte) {
	b := s.data[s.f.terms+uint64(i)*termSize:]
	so, pe := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[8:])
	next := b[termSize:]
	so2, pe2 := binary.LittleEndian.Uint32(next), binary.LittleEndian.Uint64(next[8:])
	str, ok1 := s.section(s.f.strs, s.f.posts, uint64(so), uint64(so2))
	post, ok2 := s.section(s.f.posts, s.f.tris, pe, pe2)
	if !ok1 || !ok2 {
		return nil, 0, nil // a damaged entry: an empty term, found by no lookup
	}
	return str, binary.LittleEndian.Uint32(b[4:]), post
}

// section is data[base+from : base+to] when that lies within [base, limit).
func (s *segment) section(base, limit, from, to uint64) ([]byte, bool) {
	if from > to || to > limit-base {
		return nil, false
	}
	return s.data[base+from : base+to], true
}

// term finds a term's document frequency and postings.
func (s *segment) term(t string) (df uint32, post []byte, ok bool) {
	n := int(s.f.nTerms)
	i := sort.Search(n, func(i int) bool {
		str, _, _ := s.termEntry(i)
		return string(str) >= t
	})
	if i == n {
		return 0, nil, false
	}
	str, df, post := s.termEntry(i)
	if string(str) != t {
		return 0, nil, false
	}
	return df, post, true
}

// blockFile is the file of block i.
func (s *segment) blockFile(i uint32) uint32 {
	return binary.LittleEndian.Uint32(s.data[s.f.blocks+uint64(i)*4:])
}

// trigramBlocks lists the blocks (ascending) whose bytes in this segment hold trigram t.
func (s *segment) trigramBlocks(t uint32) []uint32 {
	n := int(s.f.nTris)
	at := func(i int) (uint32, uint64) {
		b := s.data[s.f.tris+uint64(i)*triSize:]
		return binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[4:])
	}
	i := sort.Search(n, func(i int) bool { v, _ := at(i); return v >= t })
	if i == n {
		return nil
	}
	v, off := at(i)
	if v != t {
		return nil
	}
	_, end := at(i + 1)
	list, ok := s.section(s.f.triPost, s.f.files, off, end)
	if !ok {
		return nil
	}
	var out []uint32
	var id uint32
	for b := list; len(b) > 0; {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			break
		}
		id += uint32(d)
		out = append(out, id)
		b = b[k:]
	}
	return out
}

// escapes gives each file's escape mask in this segment.
func (s *segment) escapes() map[uint32]escapeMask {
	out := make(map[uint32]escapeMask, s.f.nFiles)
	for i := uint64(0); i < s.f.nFiles; i++ {
		b := s.data[s.f.files+i*fileSize:]
		out[binary.LittleEndian.Uint32(b)] = escapeMask{binary.LittleEndian.Uint64(b[4:]), binary.LittleEndian.Uint64(b[12:])}
	}
	return out
}

// mapPath maps a whole file read-only; an empty file is an error.
func mapPath(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, unmap := mapFile(f, info.Size())
	if data == nil {
		data = make([]byte, info.Size())
		if _, err := f.ReadAt(data, 0); err != nil {
			return nil, nil, err
		}
		unmap = func() {}
	}
	return data, unmap, nil
}

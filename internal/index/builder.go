package index

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// pairChunk is the length of the chunks the pairs of terms and documents, and of trigrams and
// blocks, are gathered in (growing one slice would copy it over and over).
const pairChunk = 1 << 20

// initialTerms is the room a builder makes for terms at first; its term table doubles as it
// fills. A segment holds a hundred thousand terms or more, but a table made for them at once
// spread the words read most over more cache lines than one grown to fit.
const initialTerms = 1 << 14

// builder gathers one segment in memory: the documents, their terms' postings, and the
// trigrams of each file's bytes.
type builder struct {
	terms termTable
	strs  []string
	// occs are the terms' occurrences, term<<32 | document, in the order they were read: sorted
	// by term when the segment is written, they are its postings (a document's occurrences of a
	// term, one after the other, are its count). Appending them one after the other costs less
	// than appending to each term's postings as documents end, which read and wrote a place of
	// memory of its own for every term of every document.
	occs pairs
	// extra are the counts past one of a term in a document whose occurrences were counted as it
	// was read (countDoc), by the pair left for them; counted has a bit for each such document.
	extra   map[uint64]uint32
	counted []uint64
	docs    []doc
	tris    pairs      // trigram<<32 | block, in the order blocks were added
	spare   [][]uint64 // chunks of pairs sorted and read, for the next sort
	blocks  []uint32   // by block: its file
	places  []blockPlace
	inBlock int        // bytes added to the block being filled
	filling blockPlace // where the block being filled is (from its first line to its last)
	files   []uint32
	masks   []escapeMask
	text    int64 // bytes of raw text taken in
	totalLn uint64
	open    bool // lines of a file were added since the last endFile

	set     *trigramSet
	termBuf []byte
}

func newBuilder() *builder {
	return &builder{terms: newTermTable(), set: newTrigramSet(), strs: make([]string, 0, initialTerms)}
}

// bigDoc is how many occurrences of its terms a document adds before they are counted, one
// pair left for each term (countDoc): a message of megabytes (a log pasted, a file written)
// holds its distinct terms, not each of its words. A variable for tests.
var bigDoc = 1 << 16

// addDoc indexes one message's texts.
func (b *builder) addDoc(d doc, texts []string) {
	id := uint64(len(b.docs))
	from := b.occs.len()
	limit := from + bigDoc
	var length int
	for _, t := range texts {
		b.termBuf = eachTerm(t, b.termBuf, func(term []byte) {
			if tid := b.termID(term); tid >= 0 {
				length++
				b.occs.add(uint64(tid)<<32 | id)
				if b.occs.len() > limit {
					limit = b.countDoc(from, id) + bigDoc
				}
			}
		})
	}
	d.length = uint32(min(length, maxLength))
	b.totalLn += uint64(d.length)
	b.docs = append(b.docs, d)
}

// countDoc counts the occurrences of document id, those added since from: one pair is left for
// each of its terms, its count past one kept in extra. It returns the pairs' number.
func (b *builder) countDoc(from int, id uint64) int {
	counts := map[uint64]uint32{}
	var terms []uint64
	for i := from; i < b.occs.len(); i++ {
		v := b.occs.at(i)
		if _, ok := counts[v]; !ok {
			terms = append(terms, v)
		}
		counts[v] += 1 + b.extra[v]
		delete(b.extra, v)
	}
	b.occs.truncate(from)
	if b.extra == nil {
		b.extra = map[uint64]uint32{}
	}
	for len(b.counted) <= int(id/64) {
		b.counted = append(b.counted, 0)
	}
	b.counted[id/64] |= 1 << (id % 64)
	for _, v := range terms {
		b.occs.add(v)
		if c := counts[v]; c > 1 {
			b.extra[v] = c - 1
		}
	}
	return b.occs.len()
}

// termID is a term's id in the segment, a new one for a term not seen yet; -1 for a stopword
// (kept in the table too, so that a stopword costs one lookup).
func (b *builder) termID(term []byte) int32 {
	k := hashTerm(term)
	tid, slot, ok := b.terms.get(term, k, b.strs)
	if ok {
		return tid
	}
	s := string(term)
	tid = -1
	if !stopwords[s] {
		tid = int32(len(b.strs))
		b.strs = append(b.strs, s)
	}
	b.terms.put(slot, k, tid, b.strs)
	return tid
}

// blockSize is about the bytes of a block: the trigrams are recorded per block of whole lines,
// and a file can hold a literal only when one of its blocks holds all its trigrams (a match is
// within a line). grep --index reads only those blocks: smaller blocks read less and make the
// index larger. 16 KiB against 64: a word in 122 sessions of 2,284 reads a third of the bytes,
// the index is 0.27 of the text instead of 0.21, its first build 13% slower.
const blockSize = 16 << 10

// addRaw takes in a line of the file being indexed (whose id is file): l.Bytes for the
// trigrams, l.Num, l.Offset and l.Size for the place of its block. Lines come in file order.
func (b *builder) addRaw(l jsonl.Line, file uint32) {
	line := l.Bytes
	b.open = true
	b.set.add(line)
	b.set.add(newline)
	b.text += int64(len(line)) + 1
	if b.inBlock == 0 {
		b.filling = blockPlace{from: l.Offset, line: uint64(l.Num)}
	}
	b.filling.to = l.Offset + int64(l.Size)
	b.inBlock += len(line) + 1
	if b.inBlock >= blockSize {
		b.endBlock(file)
	}
}

var newline = []byte{'\n'}

// endBlock records the trigrams of the lines added since the last block, as a block of file.
func (b *builder) endBlock(file uint32) {
	block := uint64(len(b.blocks))
	for _, t := range b.set.list {
		b.tris.add(uint64(t)<<32 | block)
	}
	b.blocks = append(b.blocks, file)
	b.places = append(b.places, b.filling)
	b.inBlock = 0
	b.set.resetGrams()
}

// endFile records the last block and the escapes of the file whose lines were added since
// the last (nothing when none were: a file whose lines all went to the segment before).
func (b *builder) endFile(file uint32) {
	if !b.open {
		return
	}
	b.open = false
	if b.inBlock > 0 || len(b.set.list) > 0 {
		b.endBlock(file)
	}
	b.files = append(b.files, file)
	b.masks = append(b.masks, b.set.escaped)
	b.set.reset()
}

// empty reports whether nothing was added.
func (b *builder) empty() bool { return len(b.files) == 0 }

// write writes the segment to path (a new file), synced.
func (b *builder) write(path string) error {
	f, err := b.writeUnsynced(path)
	if err != nil {
		return err
	}
	return syncClose(f)
}

// writeUnsynced writes the segment to path (a new file) and gives it open: syncClose syncs and
// closes it. Nothing is left at path when it fails.
func (b *builder) writeUnsynced(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	w := &countWriter{w: bufio.NewWriterSize(f, 1<<20)}
	err = b.writeTo(w)
	if err == nil {
		err = w.w.Flush()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// syncClose syncs a segment written and closes it; a segment that cannot be synced is removed.
func syncClose(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (b *builder) writeTo(w *countWriter) error {
	if err := b.checkBounds(); err != nil {
		return err
	}
	var ft segmentFooter
	w.WriteString(segMagic)
	ft.docs, ft.nDocs = w.n, uint64(len(b.docs))
	b.writeDocs(w)
	ft.terms, ft.nTerms = w.n, uint64(len(b.strs))
	order := b.sortedTerms()
	post := b.postings(order)
	b.writeTermTable(w, order, post)
	ft.strs = w.n
	for _, t := range order {
		w.WriteString(b.strs[t])
	}
	ft.posts = w.n
	w.Write(post.enc)
	ft.tris = w.n
	ft.nTris = b.writeTrigrams(w, &ft)
	ft.files, ft.nFiles = w.n, uint64(len(b.files))
	for i, id := range b.files {
		w.u32(id)
		w.u64(b.masks[i][0])
		w.u64(b.masks[i][1])
	}
	ft.blocks, ft.nBlocks = w.n, uint64(len(b.blocks))
	for _, id := range b.blocks {
		w.u32(id)
	}
	ft.places = w.n
	for _, p := range b.places {
		w.u64(uint64(p.from))
		w.u64(uint64(p.to))
		w.u64(p.line)
	}
	ft.sample = w.n
	b.writeSample(w, order)
	ft.lengths = w.n
	for _, d := range b.docs {
		w.u16(uint16(min(d.length, maxNorm)))
	}
	ft.end = w.n
	for _, v := range ft.words() {
		w.u64(v)
	}
	return w.err
}

// checkBounds checks what a segment counts in 32 bits: its documents (int32 ids while it is
// built), its blocks, and its terms' bytes (string offsets). A segment's text bounds them
// (segment.go); this says so rather than write a segment whose numbers wrapped.
func (b *builder) checkBounds() error {
	var strs uint64
	for _, t := range b.strs {
		strs += uint64(len(t))
	}
	if len(b.docs) > math.MaxInt32 || len(b.blocks) > math.MaxInt32 || strs > math.MaxUint32 {
		return fmt.Errorf("a segment of %d bytes of text holds more than its 32-bit counts allow", b.text)
	}
	return nil
}

// writeSample writes every sampleStride-th term (in order): their offsets, then their bytes.
func (b *builder) writeSample(w *countWriter, order []int32) {
	var so uint32
	for i := 0; i < len(order); i += sampleStride {
		w.u32(so)
		so += uint32(len(b.strs[order[i]]))
	}
	w.u32(so)
	for i := 0; i < len(order); i += sampleStride {
		w.WriteString(b.strs[order[i]])
	}
}

func (b *builder) writeDocs(w *countWriter) {
	for _, d := range b.docs {
		w.u32(d.file)
		w.u64(d.line)
		w.u64(d.offset)
		w.u32(d.time)
		w.u32(d.role<<lengthBits | d.length)
	}
}

// sortedTerms lists the term ids in the order of their strings. They are sorted by their
// first 8 bytes as a number, each string read once for it, and only terms that share those
// are compared by their strings: a segment holds hundreds of thousands of terms, and reading
// two scattered strings at every comparison spent a tenth of a build in cache misses.
func (b *builder) sortedTerms() []int32 {
	keys := make([]termSortKey, len(b.strs))
	for i, s := range b.strs {
		keys[i] = termSortKey{prefixKey(s), int32(i)}
	}
	slices.SortFunc(keys, func(x, y termSortKey) int {
		if x.prefix != y.prefix {
			return cmp.Compare(x.prefix, y.prefix)
		}
		return strings.Compare(b.strs[x.id], b.strs[y.id])
	})
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = k.id
	}
	return order
}

// termSortKey is a term's first 8 bytes, big-endian (zero past its end: a term sorts before
// the longer terms it starts), and its id.
type termSortKey struct {
	prefix uint64
	id     int32
}

func prefixKey(s string) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

// termPostings are the postings of a segment's terms in the order of their strings: document
// deltas and counts (uvarints), one term's after the other's.
type termPostings struct {
	enc []byte
	at  []uint64 // where each term's postings start in enc (and where the last end)
	df  []uint32
}

// postings sorts the occurrences by term, in the order of the terms' strings (order), the
// documents in order within a term, and encodes each term's postings: the delta to its last
// document (the first counted from -1), and the count. The postings come out in the order
// the segment holds them, written as one.
func (b *builder) postings(order []int32) termPostings {
	n := b.occs.len()
	b.occs.rekey(ranks(order))
	occs := b.occs.sorted(bits.Len(uint(len(b.strs))), &b.spare)
	b.occs = pairs{}
	defer func() { b.spare = append(b.spare, occs...) }()
	p := termPostings{at: make([]uint64, len(b.strs)+1), df: make([]uint32, len(b.strs))}
	enc := make([]byte, 0, n+n/2) // (a posting is a byte or two of delta and one of count; a term's occurrences in a document, one posting)
	term, doc, last, tf := int64(-1), uint32(0), int64(-1), uint64(0)
	flush := func() {
		if int(doc/64) < len(b.counted) && b.counted[doc/64]&(1<<(doc%64)) != 0 {
			tf += uint64(b.extra[uint64(order[term])<<32|uint64(doc)])
		}
		enc = binary.AppendUvarint(enc, uint64(int64(doc)-last))
		enc = binary.AppendUvarint(enc, tf)
		p.df[term]++
		last = int64(doc)
	}
	for _, c := range occs {
		for _, v := range c {
			t, d := int64(v>>32), uint32(v)
			switch {
			case t == term && d == doc:
				tf++
				continue
			case t != term:
				if term >= 0 {
					flush()
				}
				for term < t { // (a term without occurrences, were there one, has no postings)
					term++
					p.at[term] = uint64(len(enc))
				}
				last = -1
			default:
				flush()
			}
			doc, tf = d, 1
		}
	}
	if term >= 0 {
		flush()
	}
	for term < int64(len(b.strs)) {
		term++
		p.at[term] = uint64(len(enc))
	}
	p.enc = enc
	return p
}

// ranks are the places of the term ids in order.
func ranks(order []int32) []uint32 {
	r := make([]uint32, len(order))
	for i, t := range order {
		r[t] = uint32(i)
	}
	return r
}

// writeTermTable writes the fixed-size entries of the terms (in order), and an entry that
// ends the last.
func (b *builder) writeTermTable(w *countWriter, order []int32, post termPostings) {
	var so uint32
	for i, t := range order {
		w.u32(so)
		w.u32(post.df[i])
		w.u64(post.at[i])
		so += uint32(len(b.strs[t]))
	}
	w.u32(so)
	w.u32(0)
	w.u64(post.at[len(order)])
}

// writeTrigrams writes the trigram table and the file lists; it returns the trigrams' count.
func (b *builder) writeTrigrams(w *countWriter, ft *segmentFooter) uint64 {
	lists := make([]byte, 0, b.tris.len()) // (a block's delta: a byte, mostly)
	tris := b.tris.sorted(triBits, &b.spare)
	b.tris = pairs{}
	b.spare = nil
	var n uint64
	t, last := uint32(0), uint32(0)
	for _, c := range tris {
		for _, v := range c {
			if n == 0 || uint32(v>>32) != t {
				t, last = uint32(v>>32), 0
				w.u32(t)
				w.u64(uint64(len(lists)))
				n++
			}
			id := uint32(v) // a block
			lists = binary.AppendUvarint(lists, uint64(id-last))
			last = id
		}
	}
	w.u32(0)
	w.u64(uint64(len(lists)))
	ft.triPost = w.n
	w.Write(lists)
	return n
}

// countWriter writes and counts, keeping the first error.
type countWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += uint64(n)
	c.err = err
	return n, err
}

func (c *countWriter) WriteString(s string) {
	if c.err != nil {
		return
	}
	n, err := c.w.WriteString(s)
	c.n += uint64(n)
	c.err = err
}

func (c *countWriter) u32(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	c.Write(b[:])
}

func (c *countWriter) u16(v uint16) {
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], v)
	c.Write(b[:])
}

func (c *countWriter) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	c.Write(b[:])
}

// dropFile forgets the raw bytes of a file that failed; its documents stay in the segment
// under an id the manifest does not name, so no search returns them.
func (b *builder) dropFile() {
	b.set.reset()
	b.inBlock = 0
	b.open = false
}

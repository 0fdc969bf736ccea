package index

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// triChunk is the length of the chunks the trigram pairs are gathered in (growing one slice
// would copy it over and over).
const triChunk = 1 << 20

// initialTerms is the room a builder makes for terms at first; its term table doubles as it
// fills. A segment holds a hundred thousand terms or more, but a table made for them at once
// spread the words read most over more cache lines than one grown to fit.
const initialTerms = 1 << 14

// builder gathers one segment in memory: the documents, their terms' postings, and the
// trigrams of each file's bytes.
type builder struct {
	terms termTable
	strs  []string
	post  []termPostings // by term id
	docs  []doc
	tris  [][]uint64 // trigram<<32 | block, in the order blocks were added, in chunks
	// triCount counts the pairs by each half of their trigram (its low and its high 12 bits):
	// the counts of the radix sort's two passes, kept as the pairs are added.
	triCount *[2][1 << 12]int
	blocks   []uint32 // by block: its file
	places   []blockPlace
	inBlock  int        // bytes added to the block being filled
	filling  blockPlace // where the block being filled is (from its first line to its last)
	files    []uint32
	masks    []escapeMask
	text     int64 // bytes of raw text taken in
	totalLn  uint64
	open     bool // lines of a file were added since the last endFile

	set     *trigramSet
	termBuf []byte
	docTerm []int32 // the distinct terms of the document being added
}

// termPostings is what a segment gathers of a term: its postings (doc delta, tf as uvarints),
// its document frequency, the last document it was in, and its count in the document being
// added.
type termPostings struct {
	posts   []byte
	df      uint32
	lastDoc int32
	tf      int32
}

func newBuilder() *builder {
	return &builder{terms: newTermTable(), set: newTrigramSet(), triCount: new([2][1 << 12]int),
		strs: make([]string, 0, initialTerms), post: make([]termPostings, 0, initialTerms)}
}

// addDoc indexes one message's texts.
func (b *builder) addDoc(d doc, texts []string) {
	id := int32(len(b.docs))
	b.docTerm = b.docTerm[:0]
	var length int
	for _, t := range texts {
		b.termBuf = eachTerm(t, b.termBuf, func(term []byte) {
			tid := b.termID(term)
			if tid < 0 {
				return
			}
			length++
			if b.post[tid].tf == 0 {
				b.docTerm = append(b.docTerm, tid)
			}
			b.post[tid].tf++
		})
	}
	d.length = uint32(min(length, maxLength))
	b.totalLn += uint64(d.length)
	b.docs = append(b.docs, d)
	for _, t := range b.docTerm {
		tp := &b.post[t]
		tp.posts = binary.AppendUvarint(tp.posts, uint64(id-tp.lastDoc))
		tp.posts = binary.AppendUvarint(tp.posts, uint64(tp.tf))
		tp.lastDoc, tp.tf = id, 0
		tp.df++
	}
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
		b.post = append(b.post, termPostings{lastDoc: -1})
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
	list := b.set.list
	for len(list) > 0 {
		if n := len(b.tris); n == 0 || len(b.tris[n-1]) == cap(b.tris[n-1]) {
			b.tris = append(b.tris, make([]uint64, 0, triChunk))
		}
		last := &b.tris[len(b.tris)-1]
		room := min(cap(*last)-len(*last), len(list))
		for _, t := range list[:room] {
			*last = append(*last, uint64(t)<<32|block)
			b.triCount[0][t&(1<<12-1)]++
			b.triCount[1][t>>12]++
		}
		list = list[room:]
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
		err = w.w.(*bufio.Writer).Flush()
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
	b.writeTermTable(w, order)
	ft.strs = w.n
	for _, t := range order {
		w.WriteString(b.strs[t])
	}
	ft.posts = w.n
	for _, t := range order {
		w.Write(b.post[t].posts)
	}
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

// writeTermTable writes the fixed-size entries of the terms, and an entry that ends the last.
func (b *builder) writeTermTable(w *countWriter, order []int32) {
	var so uint32
	var po uint64
	for _, t := range order {
		w.u32(so)
		w.u32(b.post[t].df)
		w.u64(po)
		so += uint32(len(b.strs[t]))
		po += uint64(len(b.post[t].posts))
	}
	w.u32(so)
	w.u32(0)
	w.u64(po)
}

// writeTrigrams writes the trigram table and the file lists; it returns the trigrams' count.
func (b *builder) writeTrigrams(w *countWriter, ft *segmentFooter) uint64 {
	b.sortTrigrams()
	var lists []byte
	var n uint64
	t, last := uint32(0), uint32(0)
	for _, c := range b.tris {
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
	b.tris = nil
	w.u32(0)
	w.u64(uint64(len(lists)))
	ft.triPost = w.n
	w.Write(lists)
	return n
}

// sortTrigrams sorts the trigram pairs, in their chunks, by trigram, the blocks of a trigram
// in the order they were added (ascending): a radix sort of two passes of 12 bits, with the
// counts endBlock kept, from the chunks to a buffer and back.
func (b *builder) sortTrigrams() {
	total := 0
	for _, c := range b.tris {
		total += len(c)
	}
	tmp := make([]uint64, total)
	var at [1 << 12]int
	offsets(&at, &b.triCount[0])
	for _, c := range b.tris {
		for _, v := range c {
			k := (v >> 32) & (1<<12 - 1)
			tmp[at[k]] = v
			at[k]++
		}
	}
	// Every chunk but the last is full: pair p goes to chunk p/triChunk.
	offsets(&at, &b.triCount[1])
	for _, v := range tmp {
		k := (v >> 44) & (1<<12 - 1)
		p := at[k]
		b.tris[p/triChunk][p%triChunk] = v
		at[k]++
	}
}

// offsets sets at to where each key's run starts, given the keys' counts.
func offsets(at, count *[1 << 12]int) {
	sum := 0
	for k, c := range count {
		at[k] = sum
		sum += c
	}
}

// countWriter writes and counts, keeping the first error.
type countWriter struct {
	w   io.Writer
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

func (c *countWriter) WriteString(s string) { c.Write([]byte(s)) }

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

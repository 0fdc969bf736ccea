package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
)

// Merging. An update writes new segments for what it read and never rewrites the others, so
// segments accumulate; merges keep their number bounded, log-structured: segments are sorted
// into tiers by the text they cover (below 1 MiB, 8 MiB, 64 MiB, 512 MiB), and once a tier
// holds mergeFactor segments they become one segment of a tier above. A byte of text is thus
// rewritten at most once per tier, four times over the index's life, and a merge's inputs are
// at most maxMergeText of text; a segment of 512 MiB or more is never merged again. An update
// that changed nothing finds no tier full and reads no segment.
//
// A merge writes its segment beside its inputs, and the update's new manifest names it in
// their place: a search that opened the index before reads the inputs it opened, one after
// reads the merged segment, and none waits. A merge drops the documents, blocks and files of
// ids the manifest no longer names (files rewritten or removed).
var (
	mergeFactor        = 8
	smallTier    int64 = 1 << 20 // the text of a segment of the lowest tier is below this
	topTier            = 4       // a segment of this tier (smallTier × mergeFactor^4: 512 MiB) is never merged
	maxMergeText int64 = 1 << 30 // the text a merge's inputs cover at most
	// mergeBudget is the text the merges running at once cover at most: two merges of a
	// first build's segments (8 × 64 MiB and a line each), not two of maxMergeText.
	mergeBudget int64 = 3 << 29
)

// tierOf is the tier of a segment that covers text bytes; -1: it is never merged.
func tierOf(text int64) int {
	t := 0
	for limit := smallTier; text >= limit; limit *= int64(mergeFactor) {
		t++
		if t == topTier {
			return -1
		}
	}
	return t
}

// nextMerge picks the segments of segs to merge next: in the lowest tier holding mergeFactor
// segments, its smallest, as many as fit in maxMergeText (at most mergeFactor, at least 2); nil
// when no tier holds enough.
func nextMerge(segs []SegmentInfo) []int { return nextFreeMerge(segs, nil) }

// nextMerges picks up to n merges of segs that share no segment, to run at once: together
// they read at most mergeBudget of text (the first alone may read maxMergeText), which bounds
// their memory on any number of cores.
func nextMerges(segs []SegmentInfo, n int) [][]int {
	taken := make([]bool, len(segs))
	var picks [][]int
	var text int64
	for len(picks) < n {
		pick := nextFreeMerge(segs, taken)
		if pick == nil {
			break
		}
		var t int64
		for _, i := range pick {
			taken[i] = true
			t += segs[i].Text
		}
		if len(picks) > 0 && text+t > mergeBudget {
			break
		}
		text += t
		picks = append(picks, pick)
	}
	return picks
}

// nextFreeMerge is nextMerge among the segments not taken (nil: none is).
func nextFreeMerge(segs []SegmentInfo, taken []bool) []int {
	tiers := make([][]int, topTier)
	for i, s := range segs {
		if taken != nil && taken[i] {
			continue
		}
		if t := tierOf(s.Text); t >= 0 {
			tiers[t] = append(tiers[t], i)
		}
	}
	for _, in := range tiers {
		if len(in) < mergeFactor {
			continue
		}
		sort.SliceStable(in, func(a, b int) bool { return segs[in[a]].Text < segs[in[b]].Text })
		var text int64
		n := 0
		for n < mergeFactor && text+segs[in[n]].Text <= maxMergeText {
			text += segs[in[n]].Text
			n++
		}
		if n >= 2 {
			pick := in[:n]
			sort.Ints(pick)
			return pick
		}
	}
	return nil
}

// mergeSegments merges the manifest's segments while a tier is full (nextMerge), as many
// merges at once as there are cores and the budget allows (a first build of 11 GB ends with 21
// merges, 16 s of it when they ran on one core). A merge that fails (a damaged segment) leaves
// its inputs as they are: the update goes on without merging more.
func (u *updater) mergeSegments() {
	if len(u.segs) > 0 {
		u.changed = true
	}
	u.m.Segments = append(u.m.Segments, u.sortedNew()...)
	u.segs = nil
	var live map[uint32]bool
	for {
		picks := nextMerges(u.m.Segments, runtime.GOMAXPROCS(0))
		if picks == nil {
			return
		}
		if live == nil {
			live = u.liveIDs()
			// The builders of the files read are gone: give their memory back before the
			// merges map their inputs, so that the peak is the larger of the two, not their sum.
			debug.FreeOSMemory()
		}
		if !u.mergeAll(picks, func(id uint32) bool { return live[id] }) {
			return
		}
	}
}

// mergeAll runs the merges picks at once and puts each merged segment in the place of its
// inputs; false when one failed.
func (u *updater) mergeAll(picks [][]int, live func(uint32) bool) bool {
	infos := make([]SegmentInfo, len(picks))
	errs := make([]error, len(picks))
	inputs := make([][]string, len(picks))
	var wg sync.WaitGroup
	for k, pick := range picks {
		name := fmt.Sprintf("seg-%06d.idx", u.m.NextSeg)
		u.m.NextSeg++
		for _, i := range pick {
			inputs[k] = append(inputs[k], u.m.Segments[i].Name)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			infos[k], errs[k] = mergeFiles(u.dir, inputs[k], name, live)
		}()
	}
	wg.Wait()
	merged := map[int]SegmentInfo{} // the first input of each merge that succeeded: its segment
	gone := map[int]bool{}
	ok := true
	for k, pick := range picks {
		if errs[k] != nil {
			if u.opts.Warn != nil {
				u.opts.Warn(fmt.Errorf("index %s: segments left unmerged: %w", u.dir, errs[k]))
			}
			ok = false
			continue
		}
		merged[pick[0]] = infos[k]
		for _, i := range pick {
			gone[i] = true
		}
		u.old = append(u.old, inputs[k]...)
		u.st.Merged += len(pick)
		u.changed = true
	}
	u.replace(merged, gone)
	return ok
}

// liveIDs is the set of the ids of the files the manifest names: documents of other ids are
// dropped by a merge.
func (u *updater) liveIDs() map[uint32]bool {
	live := make(map[uint32]bool, len(u.m.Files))
	for _, e := range u.m.Files {
		live[e.ID] = true
	}
	return live
}

// sortedNew is the segments this update wrote, in the order of their names.
func (u *updater) sortedNew() []SegmentInfo {
	sort.Slice(u.segs, func(i, j int) bool { return u.segs[i].Name < u.segs[j].Name })
	return u.segs
}

// replace puts each merged segment in the place of its first input (merged, by that input's
// index in the manifest's list) and drops the other inputs (gone).
func (u *updater) replace(merged map[int]SegmentInfo, gone map[int]bool) {
	out := make([]SegmentInfo, 0, len(u.m.Segments))
	for i, s := range u.m.Segments {
		if m, ok := merged[i]; ok {
			out = append(out, m)
		} else if !gone[i] {
			out = append(out, s)
		}
	}
	u.m.Segments = out
}

// mergeInput is a segment being merged: its bytes (mapped), and where its live documents and
// blocks go in the merged segment (-1: dead).
type mergeInput struct {
	data   []byte
	f      segmentFooter
	unmap  func()
	docs   []int32
	blocks []int32
	// allDocs and allBlocks say that none of the input's documents, or blocks, is dead: its
	// lists are copied, only their first delta written anew (a first build's merges).
	allDocs, allBlocks bool
}

// section is the bytes [from, to) of the input.
func (in *mergeInput) section(from, to uint64) []byte { return in.data[from:to] }

// openMergeInput maps a segment file whole and checks its layout.
func openMergeInput(path string) (*mergeInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	in := &mergeInput{unmap: func() {}}
	if data, unmap, ok := mapWhole(f, info.Size()); ok {
		in.data, in.unmap = data, unmap
	} else if in.data, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	s, err := newSegment(path, bytes.NewReader(in.data), int64(len(in.data)))
	if err != nil {
		in.unmap()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	in.f = s.f
	return in, nil
}

// merged is the merged segment as it is made: the sections written after the documents are
// gathered in memory, a merge's inputs being at most maxMergeText of text.
type merged struct {
	w                  *countWriter
	ft                 segmentFooter
	terms, strs, posts []byte
	tris, triPost      []byte
	length             uint64
	text               int64
	sample             []string
}

// mergeFiles merges the segments named inputs (in dir) into a new segment name, keeping the
// documents of the files live says; it says what the new segment holds.
func mergeFiles(dir string, inputs []string, name string, live func(uint32) bool) (SegmentInfo, error) {
	ins := make([]*mergeInput, 0, len(inputs))
	defer func() {
		for _, in := range ins {
			in.unmap()
		}
	}()
	for _, n := range inputs {
		in, err := openMergeInput(filepath.Join(dir, n))
		if err != nil {
			return SegmentInfo{}, err
		}
		ins = append(ins, in)
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return SegmentInfo{}, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	m := &merged{w: &countWriter{w: bw}}
	err = m.write(ins, live)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return SegmentInfo{}, fmt.Errorf("merging %v: %w", inputs, err)
	}
	return SegmentInfo{Name: name, Docs: int(m.ft.nDocs), Length: m.length, Text: m.text}, nil
}

// reserve sizes the merged sections' buffers once, from the inputs' sections (a list grows by
// a few bytes at most when its first document's delta is renumbered): appending then never
// copies a buffer into a larger one, so a merge holds its output once, not the copies left
// behind by growth.
func (m *merged) reserve(ins []*mergeInput) {
	var terms, strs, posts, tris, triPost uint64
	for _, in := range ins {
		f := in.f
		terms += f.nTerms
		strs += f.posts - f.strs
		posts += f.tris - f.posts + 5*f.nTerms
		tris += f.nTris
		triPost += f.files - f.triPost + 5*f.nTris
	}
	m.terms = make([]byte, 0, (terms+1)*termSize)
	m.strs = make([]byte, 0, strs)
	m.posts = make([]byte, 0, posts)
	m.tris = make([]byte, 0, (tris+1)*triSize)
	m.triPost = make([]byte, 0, triPost)
}

// write writes the merged segment, in the order of its sections (segment.go).
func (m *merged) write(ins []*mergeInput, live func(uint32) bool) error {
	m.reserve(ins)
	w := m.w
	w.WriteString(segMagic)
	m.ft.docs = w.n
	if err := m.writeDocs(ins, live); err != nil {
		return err
	}
	m.mapBlocks(ins, live)
	if err := m.mergeTerms(ins); err != nil {
		return err
	}
	if err := m.mergeTrigrams(ins); err != nil {
		return err
	}
	if uint64(len(m.strs)) > 1<<32-1 || m.ft.nDocs > 1<<31-1 || m.ft.nBlocks > 1<<31-1 {
		return fmt.Errorf("a merged segment of %d bytes of text holds more than its 32-bit counts allow", m.text)
	}
	m.ft.terms = w.n
	w.Write(m.terms)
	m.ft.strs = w.n
	w.Write(m.strs)
	m.ft.posts = w.n
	w.Write(m.posts)
	m.ft.tris = w.n
	w.Write(m.tris)
	m.ft.triPost = w.n
	w.Write(m.triPost)
	m.writeTables(ins, live)
	m.ft.sample = w.n
	m.writeSample()
	m.ft.lengths = w.n
	for _, in := range ins {
		lens := in.section(in.f.lengths, in.f.end)
		for d, nd := range in.docs {
			if nd >= 0 {
				w.Write(lens[2*d : 2*d+2])
			}
		}
	}
	m.ft.end = w.n
	for _, v := range m.ft.words() {
		w.u64(v)
	}
	return w.err
}

// writeDocs writes the live documents, numbering them in the order of the inputs.
func (m *merged) writeDocs(ins []*mergeInput, live func(uint32) bool) error {
	var n int32
	for _, in := range ins {
		docs := in.section(in.f.docs, in.f.terms)
		in.docs = make([]int32, in.f.nDocs)
		in.allDocs = true
		for d := range in.docs {
			b := docs[d*docSize : (d+1)*docSize]
			if !live(binary.LittleEndian.Uint32(b)) {
				in.docs[d], in.allDocs = -1, false
				continue
			}
			in.docs[d] = n
			n++
			m.length += uint64(binary.LittleEndian.Uint32(b[24:]) & maxLength)
			m.w.Write(b)
		}
	}
	m.ft.nDocs = uint64(n)
	return m.w.err
}

// mapBlocks numbers the live blocks in the order of the inputs, and adds up the text they
// cover.
func (m *merged) mapBlocks(ins []*mergeInput, live func(uint32) bool) {
	var n int32
	for _, in := range ins {
		files := in.section(in.f.blocks, in.f.places)
		places := in.section(in.f.places, in.f.sample)
		in.blocks = make([]int32, in.f.nBlocks)
		in.allBlocks = true
		for i := range in.blocks {
			if !live(binary.LittleEndian.Uint32(files[4*i:])) {
				in.blocks[i], in.allBlocks = -1, false
				continue
			}
			in.blocks[i] = n
			n++
			if p, ok := placeAt(places, i); ok {
				m.text += p.to - p.from
			}
		}
	}
	m.ft.nBlocks = uint64(n)
}

// termCursor walks one input's terms in order.
type termCursor struct {
	in   *mergeInput
	i    uint64
	tab  []byte
	strs []byte
}

func (c *termCursor) done() bool { return c.i >= c.in.f.nTerms }

// entry is term i's string offset, df and postings offset.
func (c *termCursor) entry(i uint64) (uint32, uint64) {
	b := c.tab[i*termSize:]
	return binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[8:])
}

// term is the current term's bytes and its postings' bounds; ok false when damaged.
func (c *termCursor) term() (t []byte, from, to uint64, ok bool) {
	so, po := c.entry(c.i)
	so2, po2 := c.entry(c.i + 1)
	if so > so2 || uint64(so2) > uint64(len(c.strs)) || po > po2 || po2 > c.in.f.tris-c.in.f.posts {
		return nil, 0, 0, false
	}
	return c.strs[so:so2], po, po2, true
}

// mergeTerms merges the inputs' sorted terms, each term's postings renumbered (dead
// documents dropped); a term left without documents is dropped.
func (m *merged) mergeTerms(ins []*mergeInput) error {
	cs := make([]*termCursor, len(ins))
	for i, in := range ins {
		cs[i] = &termCursor{in: in, tab: in.section(in.f.terms, in.f.strs), strs: in.section(in.f.strs, in.f.posts)}
	}
	for {
		var least []byte
		found := false
		for _, c := range cs {
			if c.done() {
				continue
			}
			t, _, _, ok := c.term()
			if !ok {
				return errBadSegment
			}
			if !found || bytes.Compare(t, least) < 0 {
				least, found = t, true
			}
		}
		if !found {
			break
		}
		start, df := len(m.posts), uint32(0)
		last := int64(-1)
		for _, c := range cs {
			if c.done() {
				continue
			}
			t, from, to, _ := c.term()
			if !bytes.Equal(t, least) {
				continue
			}
			var err error
			if df, last, err = m.renumber(c.in, c.in.section(c.in.f.posts+from, c.in.f.posts+to), df, last); err != nil {
				return err
			}
			c.i++
		}
		if df == 0 {
			m.posts = m.posts[:start]
			continue
		}
		if m.ft.nTerms%sampleStride == 0 {
			m.sample = append(m.sample, string(least))
		}
		m.terms = binary.LittleEndian.AppendUint32(m.terms, uint32(len(m.strs)))
		m.terms = binary.LittleEndian.AppendUint32(m.terms, df)
		m.terms = binary.LittleEndian.AppendUint64(m.terms, uint64(start))
		m.strs = append(m.strs, least...)
		m.ft.nTerms++
	}
	m.terms = binary.LittleEndian.AppendUint32(m.terms, uint32(len(m.strs)))
	m.terms = binary.LittleEndian.AppendUint32(m.terms, 0)
	m.terms = binary.LittleEndian.AppendUint64(m.terms, uint64(len(m.posts)))
	return nil
}

// renumber appends a term's postings of one input (doc delta, tf), its documents renumbered
// and the dead ones dropped; df and last (the last document appended) carry from input to
// input.
func (m *merged) renumber(in *mergeInput, list []byte, df uint32, last int64) (uint32, int64, error) {
	if in.allDocs && copyLiveLists {
		var n int
		var err error
		m.posts, n, last, err = copyList(m.posts, list, true, -1, in.docs, last)
		return df + uint32(n), last, err
	}
	old := int64(-1)
	for len(list) > 0 {
		delta, k := binary.Uvarint(list)
		if k <= 0 {
			return df, last, errBadSegment
		}
		tf, k2 := binary.Uvarint(list[k:])
		if k2 <= 0 {
			return df, last, errBadSegment
		}
		list = list[k+k2:]
		old += int64(delta)
		if old < 0 || old >= int64(len(in.docs)) {
			return df, last, errBadSegment
		}
		nd := int64(in.docs[old])
		if nd < 0 {
			continue
		}
		m.posts = binary.AppendUvarint(m.posts, uint64(nd-last))
		m.posts = binary.AppendUvarint(m.posts, tf)
		last = nd
		df++
	}
	return df, last, nil
}

// copyLiveLists turns on the copy of the lists of inputs whose items all live (a variable
// for tests, which compare the merge without it).
var copyLiveLists = true

// copyList appends list, the list of an input whose items all live (ids: their numbers in
// the merged segment), to dst: checked whole, then copied but for its first delta, written
// anew from last (the item appended last; start is where a list's first delta counts from).
// It gives dst, the list's items and the item now appended last.
func copyList(dst, list []byte, counted bool, start int64, ids []int32, last int64) ([]byte, int, int64, error) {
	n, end, err := checkList(list, counted, start, len(ids))
	if err != nil || n == 0 {
		return dst, 0, last, err
	}
	first, k := binary.Uvarint(list)
	old := start + int64(first)
	id := int64(ids[old])
	dst = binary.AppendUvarint(dst, uint64(id-last))
	return append(dst, list[k:]...), n, id - old + end, nil
}

// checkList walks a list of deltas (each followed by a count when counted), the first
// counted from start, and checks that every item is below n; it gives the items' number and the
// last. The lists of an input whose items all live are copied once checked (copyList), as
// the renumbered bytes would be the same but for the first delta.
func checkList(list []byte, counted bool, start int64, n int) (int, int64, error) {
	items, at := 0, start
	for len(list) > 0 {
		if len(list) >= 8 && at >= 0 { // (items once past the first: a delta of 0 cannot go below it)
			if w := binary.LittleEndian.Uint64(list); w&0x8080808080808080 == 0 {
				k, sum := oneByteItems(w, counted)
				items += k
				if at += sum; at >= int64(n) {
					return 0, 0, errBadSegment
				}
				list = list[8:]
				continue
			}
		}
		delta, k := binary.Uvarint(list)
		if k <= 0 {
			return 0, 0, errBadSegment
		}
		list = list[k:]
		if counted {
			if _, k = binary.Uvarint(list); k <= 0 {
				return 0, 0, errBadSegment
			}
			list = list[k:]
		}
		at += int64(delta)
		if at < 0 || at >= int64(n) {
			return 0, 0, errBadSegment
		}
		items++
	}
	return items, at, nil
}

// oneByteItems reads 8 bytes of a list that are each a varint of one byte (none has its
// upper bit set), starting with a delta: the items they hold (4 of a delta and a count, or 8
// deltas), and the sum of their deltas. The sum adds 16-bit lanes of the bytes a multiply
// gathers in the top lane (at most 8 × 127, which the lane holds).
func oneByteItems(w uint64, counted bool) (int, int64) {
	const lanes = 0x00ff00ff00ff00ff
	deltas, items := w&lanes, 4
	if !counted {
		deltas, items = deltas+(w>>8)&lanes, 8
	}
	return items, int64(deltas * 0x0001000100010001 >> 48)
}

// mergeTrigrams merges the inputs' trigram tables, each trigram's blocks renumbered (dead
// blocks dropped).
func (m *merged) mergeTrigrams(ins []*mergeInput) error {
	type cursor struct {
		in        *mergeInput
		i         uint64
		tab, list []byte
	}
	cs := make([]*cursor, len(ins))
	for i, in := range ins {
		cs[i] = &cursor{in: in, tab: in.section(in.f.tris, in.f.triPost), list: in.section(in.f.triPost, in.f.files)}
	}
	at := func(c *cursor, i uint64) (uint32, uint64) {
		b := c.tab[i*triSize:]
		return binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint64(b[4:])
	}
	for {
		var least uint32
		found := false
		for _, c := range cs {
			if c.i < c.in.f.nTris {
				if t, _ := at(c, c.i); !found || t < least {
					least, found = t, true
				}
			}
		}
		if !found {
			break
		}
		start := len(m.triPost)
		var last uint32
		for _, c := range cs {
			if c.i >= c.in.f.nTris {
				continue
			}
			t, from := at(c, c.i)
			if t != least {
				continue
			}
			_, to := at(c, c.i+1)
			if from > to || to > uint64(len(c.list)) {
				return errBadSegment
			}
			if c.in.allBlocks && copyLiveLists {
				var l int64
				var err error
				if m.triPost, _, l, err = copyList(m.triPost, c.list[from:to], false, 0, c.in.blocks, int64(last)); err != nil {
					return err
				}
				last = uint32(l)
				c.i++
				continue
			}
			var block uint32
			for b := c.list[from:to]; len(b) > 0; {
				d, k := binary.Uvarint(b)
				if k <= 0 {
					return errBadSegment
				}
				b = b[k:]
				block += uint32(d)
				if uint64(block) >= uint64(len(c.in.blocks)) {
					return errBadSegment
				}
				if nb := c.in.blocks[block]; nb >= 0 {
					m.triPost = binary.AppendUvarint(m.triPost, uint64(uint32(nb)-last))
					last = uint32(nb)
				}
			}
			c.i++
		}
		if len(m.triPost) == start {
			continue
		}
		m.tris = binary.LittleEndian.AppendUint32(m.tris, least)
		m.tris = binary.LittleEndian.AppendUint64(m.tris, uint64(start))
		m.ft.nTris++
	}
	m.tris = binary.LittleEndian.AppendUint32(m.tris, 0)
	m.tris = binary.LittleEndian.AppendUint64(m.tris, uint64(len(m.triPost)))
	return nil
}

// writeTables writes the files, blocks and places of the live files.
func (m *merged) writeTables(ins []*mergeInput, live func(uint32) bool) {
	w := m.w
	m.ft.files = w.n
	for _, in := range ins {
		files := in.section(in.f.files, in.f.blocks)
		for i := uint64(0); i < in.f.nFiles; i++ {
			if e := files[i*fileSize : (i+1)*fileSize]; live(binary.LittleEndian.Uint32(e)) {
				w.Write(e)
				m.ft.nFiles++
			}
		}
	}
	m.ft.blocks = w.n
	for _, in := range ins {
		files := in.section(in.f.blocks, in.f.places)
		for i, nb := range in.blocks {
			if nb >= 0 {
				w.Write(files[4*i : 4*i+4])
			}
		}
	}
	m.ft.places = w.n
	for _, in := range ins {
		places := in.section(in.f.places, in.f.sample)
		for i, nb := range in.blocks {
			if nb >= 0 {
				w.Write(places[placeSize*i : placeSize*(i+1)])
			}
		}
	}
}

// writeSample writes every sampleStride-th term of the merged ones, as builder.writeSample.
func (m *merged) writeSample() {
	var so uint32
	for _, t := range m.sample {
		m.w.u32(so)
		so += uint32(len(t))
	}
	m.w.u32(so)
	for _, t := range m.sample {
		m.w.WriteString(t)
	}
}

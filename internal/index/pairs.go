package index

// pairs gathers pairs of a key (the upper 32 bits) and a value (the lower 32), in chunks of
// pairChunk, and sorts them by key, the pairs of a key in the order they were added: a radix
// sort from the chunks to as many more and back, 12 bits of the key a pass; a key of 13 to 24
// bits (a segment's terms, its trigrams) is sorted by its upper 12 bits, then each run by the
// bits below (sortByHighThenLow).
type pairs struct {
	full [][]uint64 // the chunks filled
	last []uint64   // the chunk being filled (pairChunk long)
	n    int        // its pairs
}

func (p *pairs) add(v uint64) {
	if p.n == len(p.last) {
		p.next()
	}
	p.last[p.n] = v
	p.n++
}

// next starts a chunk.
func (p *pairs) next() {
	if p.last != nil {
		p.full = append(p.full, p.last)
	}
	p.last, p.n = make([]uint64, pairChunk), 0
}

// chunks are the pairs' chunks, every one but the last full.
func (p *pairs) chunks() [][]uint64 {
	if p.n == 0 {
		return p.full
	}
	return append(p.full, p.last[:p.n])
}

// at is the i-th pair added.
func (p *pairs) at(i int) uint64 {
	if k := i / pairChunk; k < len(p.full) {
		return p.full[k][i%pairChunk]
	}
	return p.last[i%pairChunk]
}

// truncate drops the pairs added after the first n.
func (p *pairs) truncate(n int) {
	if k := n / pairChunk; k < len(p.full) {
		p.last, p.full = p.full[k], p.full[:k]
	}
	p.n = n - len(p.full)*pairChunk
}

// rekey replaces each pair's key k by keys[k].
func (p *pairs) rekey(keys []uint32) {
	for _, c := range p.chunks() {
		for i, v := range c {
			c[i] = uint64(keys[v>>32])<<32 | v&(1<<32-1)
		}
	}
}

// len is the number of pairs.
func (p *pairs) len() int { return len(p.full)*pairChunk + p.n }

// radixBits are the bits of the key a pass of the sort places.
const radixBits = 12

// sorted sorts the pairs, whose keys are below 1<<keyBits, and gives them in chunks (every one
// but the last full). The chunks the sort needs besides the pairs' it takes from free, and puts
// there those it no longer needs: a segment's two sorts share them.
func (p *pairs) sorted(keyBits int, free *[][]uint64) [][]uint64 {
	chunks := p.chunks()
	passes := (keyBits + radixBits - 1) / radixBits
	if passes == 0 || len(chunks) == 0 {
		return chunks
	}
	dst := spareChunks(chunks, free)
	if passes == 2 {
		sortByHighThenLow(chunks, dst, keyBits)
		*free = append(*free, dst...)
		return chunks
	}
	counts := make([][1 << radixBits]int, passes)
	for _, c := range chunks {
		for _, v := range c {
			k := v >> 32
			for i := range counts {
				counts[i][k>>(i*radixBits)&(1<<radixBits-1)]++
			}
		}
	}
	src := chunks
	for i := range counts {
		var at [1 << radixBits]int
		sum := 0
		for k, n := range counts[i] {
			at[k] = sum
			sum += n
		}
		shift := 32 + i*radixBits
		for _, c := range src {
			for _, v := range c {
				k := v >> shift & (1<<radixBits - 1)
				q := at[k]
				dst[q/pairChunk][q%pairChunk] = v
				at[k]++
			}
		}
		src, dst = dst, src
	}
	*free = append(*free, dst...)
	return src
}

// spareChunks gives chunks of the lengths of chunks, from free first.
func spareChunks(chunks [][]uint64, free *[][]uint64) [][]uint64 {
	dst := make([][]uint64, len(chunks))
	for i, c := range chunks {
		if n := len(*free); n > 0 {
			dst[i], *free = (*free)[n-1][:len(c)], (*free)[:n-1]
		} else {
			dst[i] = make([]uint64, len(c), pairChunk)
		}
	}
	return dst
}

// sortByHighThenLow sorts chunks, whose keys have more than radixBits bits and at most twice
// as many, by the key's upper radixBits bits into tmp, then each run of pairs sharing them by
// the bits below back into chunks. The second pass writes within one run at a time, a few
// thousand pairs in the caches, where a second pass over the whole scattered its writes over
// all of it.
func sortByHighThenLow(chunks, tmp [][]uint64, keyBits int) {
	lowBits := keyBits - radixBits
	highShift, lowMask := 32+lowBits, uint64(1)<<lowBits-1
	var at [1<<radixBits + 1]int
	for _, c := range chunks {
		for _, v := range c {
			at[v>>highShift+1]++
		}
	}
	for k := 1; k < len(at); k++ {
		at[k] += at[k-1]
	}
	runs := at // where each run starts (and the last ends)
	for _, c := range chunks {
		for _, v := range c {
			k := v >> highShift
			q := at[k]
			tmp[q/pairChunk][q%pairChunk] = v
			at[k]++
		}
	}
	low := make([]int, 1<<lowBits)
	for r := range 1 << radixBits {
		from, to := runs[r], runs[r+1]
		if to-from < 2 {
			if to > from {
				chunks[from/pairChunk][from%pairChunk] = tmp[from/pairChunk][from%pairChunk]
			}
			continue
		}
		clear(low)
		for q := from; q < to; q++ {
			low[tmp[q/pairChunk][q%pairChunk]>>32&lowMask]++
		}
		sum := from
		for k, n := range low {
			low[k] = sum
			sum += n
		}
		for q := from; q < to; q++ {
			v := tmp[q/pairChunk][q%pairChunk]
			k := v >> 32 & lowMask
			d := low[k]
			chunks[d/pairChunk][d%pairChunk] = v
			low[k]++
		}
	}
}

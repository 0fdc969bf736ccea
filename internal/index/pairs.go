package index

// pairs gathers pairs of a key (the upper 32 bits) and a value (the lower 32), in chunks of
// pairChunk, and sorts them by key, the pairs of a key in the order they were added: a radix
// sort, 12 bits of the key a pass, from the chunks to as many more and back.
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
	dst := make([][]uint64, len(src))
	for i, c := range src {
		if n := len(*free); n > 0 {
			dst[i], *free = (*free)[n-1][:len(c)], (*free)[:n-1]
		} else {
			dst[i] = make([]uint64, len(c), pairChunk)
		}
	}
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

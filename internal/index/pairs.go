package index

import "math/bits"

// pairs gathers pairs of a key (the upper 32 bits) and a value (the lower 32), in chunks of
// pairChunk, and sorts them by key, the pairs of a key in the order they were added: a radix
// sort, 12 bits of the key a pass, from the chunks to as many more and back.
type pairs struct {
	chunks [][]uint64
	most   uint64 // the largest key added
}

func (p *pairs) add(v uint64) {
	n := len(p.chunks)
	if n == 0 || len(p.chunks[n-1]) == pairChunk {
		p.chunks = append(p.chunks, make([]uint64, 0, pairChunk))
		n++
	}
	p.chunks[n-1] = append(p.chunks[n-1], v)
	p.most = max(p.most, v>>32)
}

// radixBits are the bits of the key a pass of the sort places.
const radixBits = 12

// sorted sorts the pairs and gives them in chunks (every one but the last full). The chunks
// the sort needs besides the pairs' it takes from free, and puts there those it no longer needs:
// a segment's two sorts share them.
func (p *pairs) sorted(free *[][]uint64) [][]uint64 {
	passes := (bits.Len64(p.most) + radixBits - 1) / radixBits
	if passes == 0 || len(p.chunks) == 0 {
		return p.chunks
	}
	counts := make([][1 << radixBits]int, passes)
	for _, c := range p.chunks {
		for _, v := range c {
			k := v >> 32
			for i := range counts {
				counts[i][k>>(i*radixBits)&(1<<radixBits-1)]++
			}
		}
	}
	src := p.chunks
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

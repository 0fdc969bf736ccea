package index

import (
	"math/bits"
	"math/rand"
	"slices"
	"testing"
)

// TestPairsSorted: pairs come out sorted by key, those of a key in the order they were added,
// across chunks and for keys of one to three passes; the chunks handed back are reused.
func TestPairsSorted(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		keys uint32
	}{
		{"none", 0, 1},
		{"one key", 1000, 1},
		{"one pass", 5000, 1 << 12},
		{"two passes, chunks", pairChunk + 12345, 1 << 18},
		{"three passes", 20000, 1 << 31},
	} {
		r := rand.New(rand.NewSource(1))
		var p pairs
		var want []uint64
		for i := range c.n {
			v := uint64(r.Uint32()%c.keys)<<32 | uint64(i)
			p.add(v)
			want = append(want, v)
		}
		slices.SortStableFunc(want, func(a, b uint64) int { return int(a>>32) - int(b>>32) })
		var free [][]uint64
		var got []uint64
		for _, ch := range p.sorted(bits.Len32(c.keys-1), &free) {
			if len(ch) > pairChunk {
				t.Fatalf("%s: a chunk of %d pairs", c.name, len(ch))
			}
			got = append(got, ch...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: pairs not sorted by key, in the order added", c.name)
		}
		if c.n > 0 && c.keys > 1 && len(free) != len(p.chunks()) {
			t.Errorf("%s: %d chunks handed back, want %d", c.name, len(free), len(p.chunks()))
		}
	}
}

package index

import (
	"bufio"
	"bytes"
	"fmt"
	"math/bits"
	"math/rand"
	"slices"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
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
		{"two passes, a bit past one", 30000, 1 << 13},
		{"two passes, whole", 30000, 1 << 24},
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

// TestCountedDocsWriteTheSameSegment: the occurrences of a large document counted as it is
// read (countDoc, here every few hundred) give the segment of the occurrences kept one by one.
func TestCountedDocsWriteTheSameSegment(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	words := []string{"reconnect", "backoff", "server", "status", "config", "retry", "ab", "zz"}
	var texts []string
	for d := range 40 {
		n := 10 + r.Intn(3000)
		if d%7 == 0 {
			n = 40000
		}
		text := make([]byte, 0, 8*n)
		for range n {
			text = append(text, words[r.Intn(len(words))]...)
			if r.Intn(50) == 0 {
				text = fmt.Appendf(text, "u%dq", r.Intn(100000)) // (a rarer term)
			}
			text = append(text, ' ')
		}
		texts = append(texts, string(text))
	}
	segment := func(big int) []byte {
		old := bigDoc
		bigDoc = big
		defer func() { bigDoc = old }()
		b := newBuilder()
		for i, text := range texts {
			b.addDoc(doc{file: 1, line: uint64(i + 1)}, []string{text[:len(text)/2], text[len(text)/2:]})
			b.addRaw(jsonl.Line{Bytes: []byte(text), Num: i + 1}, 1)
		}
		b.endFile(1)
		var out bytes.Buffer
		w := countWriter{w: bufio.NewWriter(&out)}
		if err := b.writeTo(&w); err != nil || w.w.Flush() != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	kept, counted := segment(1<<30), segment(300)
	if !bytes.Equal(kept, counted) {
		t.Errorf("a segment of %d bytes with documents counted as read, %d without: they differ", len(counted), len(kept))
	}
}

package parquet

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// FuzzWrite: rows made from the fuzzer's seed, written as a file whose footer reads back with
// every row and, in each column chunk, one level a value, a null or an empty list.
func FuzzWrite(f *testing.F) {
	f.Add(uint64(1), uint16(0), "")
	f.Add(uint64(2), uint16(3), "é\x00")
	f.Add(uint64(3), uint16(700), strings.Repeat("x", 100))
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, text string) {
		rows, items := randomRows(seed, int(n)%300, text)
		var buf bytes.Buffer
		if err := Write(&buf, rows, KeyValue{"k", text}); err != nil {
			t.Fatal(err)
		}
		footer, err := ReadFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		if footer.Rows != int64(len(rows)) || len(footer.Meta) != 1 || footer.Meta[0].Value != text {
			t.Fatalf("footer %+v for %d rows", footer, len(rows))
		}
		if len(footer.Columns) != 12 {
			t.Fatalf("%d columns", len(footer.Columns))
		}
		for _, c := range footer.Columns {
			want := int64(len(rows))
			if c.Path[0] == "items" {
				want = int64(items)
			}
			if c.Values != want {
				t.Fatalf("column %v: %d levels, want %d", c.Path, c.Values, want)
			}
		}
	})
}

// randomRows makes n rows of every kind of column from seed, text in their strings; items is
// the levels the list's columns hold (an empty list is one).
func randomRows(seed uint64, n int, text string) (rows []kinds, items int) {
	r := rand.New(rand.NewPCG(seed, seed>>32))
	for range n {
		k := kinds{I32: r.Int32(), I64: r.Int64(), F64: r.NormFloat64(), S: text[:r.IntN(len(text)+1)],
			T: time.UnixMilli(r.Int64N(1 << 45))}
		if r.IntN(2) == 0 {
			k.OptT, k.OptF, k.OptI, k.OptS = ptr(k.T), ptr(k.F64), ptr(k.I64), ptr(text)
		}
		m := r.IntN(4)
		items += max(m, 1)
		for range m {
			it := item{Name: text, Count: r.Int64()}
			if r.IntN(2) == 0 {
				it.Score = ptr(r.Float64())
			}
			k.Items = append(k.Items, it)
		}
		rows = append(rows, k)
	}
	return rows, items
}

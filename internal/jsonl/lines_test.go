package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzLineReader compares the line reader with a plain split of the same bytes: same lines,
// numbers and offsets; blank lines skipped; a BOM stripped; the unterminated tail held back.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nc"))
	f.Add([]byte("\xef\xbb\xbf{}\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := NewLineReader(bytes.NewReader(data))
		lr.SetMaxLine(1 << 20)
		var got []Line
		for {
			l, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			l.Bytes = append([]byte(nil), l.Bytes...)
			got = append(got, l)
		}
		var want []Line
		off := 0
		for num := 1; off < len(data); num++ {
			i := bytes.IndexByte(data[off:], '\n')
			if i < 0 {
				if p, ok := lr.Pending(); strings.TrimSpace(string(data[off:])) != "" && (!ok || p.Offset != int64(off)) {
					if !(off == 0 && bytes.Equal(bytes.TrimSpace(data), []byte("\xef\xbb\xbf"))) {
						t.Fatalf("pending line at %d not reported", off)
					}
				}
				break
			}
			b := data[off : off+i]
			if off == 0 {
				b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
			}
			b = bytes.TrimSuffix(b, []byte("\r"))
			if !IsBlank(b) {
				want = append(want, Line{Num: num, Offset: int64(off), Size: i + 1, Bytes: b})
			}
			off += i + 1
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Num != w.Num || g.Offset != w.Offset || g.Size != w.Size || !bytes.Equal(g.Bytes, w.Bytes) {
				t.Fatalf("line %d: got %+v want %+v", i, g, w)
			}
		}
	})
}

// TestResetReadsAnewAsANewReader: a reader reset onto another input reads it as a new reader
// would (lines, numbers, offsets, the BOM, the pending tail, the line cap), whatever the
// input before it left behind: a line longer than the buffer, an error, a pending tail.
func TestResetReadsAnewAsANewReader(t *testing.T) {
	inputs := []string{
		strings.Repeat("x", 300) + "\n{\"a\":1}\n",
		"\xEF\xBB\xBF{\"b\":2}\n\n{\"c\":3}\n{\"tail\"",
		"{\"d\":4}\n" + strings.Repeat("y", 5000) + "\n",
		"",
		"{\"e\":5}",
	}
	read := func(lr *LineReader) []string {
		var out []string
		for {
			l, err := lr.Next()
			if err != nil {
				out = append(out, "err:"+err.Error())
				break
			}
			out = append(out, string(l.Bytes)+"@"+string(rune('0'+l.Num%10)))
		}
		if p, ok := lr.Pending(); ok {
			out = append(out, "pending:"+string(p.Bytes))
		}
		return append(out, "offset:"+strings.Repeat("*", int(lr.Offset()%7)))
	}
	shared := NewLineReaderSize(nil, 64)
	shared.SetMaxLine(1000) // Reset puts the default cap back: the 5,000-byte line is read
	for i, in := range inputs {
		shared.Reset(strings.NewReader(in))
		want := read(NewLineReaderSize(strings.NewReader(in), 64))
		if got := read(shared); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("input %d: after Reset %q, a new reader %q", i, got, want)
		}
	}
}

// FuzzSliceReader holds SliceReader to LineReader's reading of the same bytes: the same lines,
// numbers, offsets and sizes, the same pending tail and offset, the same line over the cap,
// for buffers and caps small enough that lines cross them.
func FuzzSliceReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nc"), uint8(16), uint8(4))
	f.Add([]byte("\xef\xbb\xbf{}\n"), uint8(16), uint8(200))
	f.Add([]byte(strings.Repeat("x", 40)+"\n"+strings.Repeat("y", 17)), uint8(17), uint8(10))
	f.Add([]byte(strings.Repeat("x", 16)+"\n"+strings.Repeat("y", 16)), uint8(16), uint8(3))
	f.Add([]byte(""), uint8(16), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, size, maxLine uint8) {
		bufSize := 16 + int(size)%64 // bufio's smallest buffer is 16 bytes
		lr := NewLineReaderSize(struct{ io.Reader }{bytes.NewReader(data)}, int64(bufSize))
		lr.SetMaxLine(int(maxLine))
		sr := NewSliceReader(data, bufSize)
		sr.SetMaxLine(int(maxLine))
		for i := 0; ; i++ {
			want, werr := lr.Next()
			got, gerr := sr.Next()
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("line %d: error %v, want %v", i, gerr, werr)
			}
			if got.Num != want.Num || got.Offset != want.Offset || got.Size != want.Size || !bytes.Equal(got.Bytes, want.Bytes) {
				t.Fatalf("line %d: got %+v, want %+v", i, got, want)
			}
			if werr != nil {
				break
			}
		}
		wp, wok := lr.Pending()
		gp, gok := sr.Pending()
		if gok != wok || gp.Num != wp.Num || gp.Offset != wp.Offset || gp.Size != wp.Size || !bytes.Equal(gp.Bytes, wp.Bytes) {
			t.Fatalf("pending %v %+v, want %v %+v", gok, gp, wok, wp)
		}
		if _, err := lr.Next(); err == io.EOF && sr.Offset() != lr.Offset() {
			t.Fatalf("offset %d, want %d", sr.Offset(), lr.Offset())
		}
	})
}

// FuzzOwnLongLines holds a reader with OwnLongLines to one without: the same lines, numbers,
// offsets and sizes, the same errors, pending tail and offset, for buffers and caps small enough
// that lines cross them; and a line taken (Take) keeps its bytes while the reader reads on,
// until it is released.
func FuzzOwnLongLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  \nc"), uint8(16), uint8(4), uint8(0xff))
	f.Add([]byte(strings.Repeat("x", 40)+"\n"+strings.Repeat("y", 17)), uint8(17), uint8(100), uint8(1))
	f.Add([]byte(strings.Repeat("x", 16)+"\n"+strings.Repeat("y", 100)+"\r\n"+strings.Repeat("z", 70)), uint8(0), uint8(200), uint8(2))
	f.Add([]byte("\xef\xbb\xbf"+strings.Repeat("w", 50)+"\n{}\n"), uint8(3), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, size, maxLine, takes uint8) {
		bufSize := 16 + int(size)%64
		plain := NewLineReaderSize(struct{ io.Reader }{bytes.NewReader(data)}, int64(bufSize))
		own := NewLineReaderSize(struct{ io.Reader }{bytes.NewReader(data)}, int64(bufSize))
		plain.SetMaxLine(int(maxLine))
		own.SetMaxLine(int(maxLine))
		own.OwnLongLines()
		defer own.Free()
		type taken struct {
			b, want []byte
			release func()
		}
		var kept []taken
		for i := 0; ; i++ {
			want, werr := plain.Next()
			got, gerr := own.Next()
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("line %d: error %v, want %v", i, gerr, werr)
			}
			if got.Num != want.Num || got.Offset != want.Offset || got.Size != want.Size || !bytes.Equal(got.Bytes, want.Bytes) {
				t.Fatalf("line %d: got %+v, want %+v", i, got, want)
			}
			if werr != nil {
				break
			}
			if takes>>(i%8)&1 == 1 {
				if release, ok := own.Take(); ok {
					kept = append(kept, taken{got.Bytes, bytes.Clone(want.Bytes), release})
				}
			}
		}
		wp, wok := plain.Pending()
		gp, gok := own.Pending()
		if gok != wok || gp.Num != wp.Num || gp.Offset != wp.Offset || gp.Size != wp.Size || !bytes.Equal(gp.Bytes, wp.Bytes) {
			t.Fatalf("pending %v %+v, want %v %+v", gok, gp, wok, wp)
		}
		if own.Offset() != plain.Offset() {
			t.Fatalf("offset %d, want %d", own.Offset(), plain.Offset())
		}
		for i, k := range kept {
			if !bytes.Equal(k.b, k.want) {
				t.Fatalf("taken line %d changed while the reader read on", i)
			}
			k.release()
		}
	})
}

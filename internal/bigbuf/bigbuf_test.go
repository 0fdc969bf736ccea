package bigbuf

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestBufKeepsWhatItHolds: whatever the pieces appended or read into Room, and however often
// the buffer grows (moved by the kernel or copied), it holds their concatenation, and Peak
// counts what it held.
func TestBufKeepsWhatItHolds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		piece int
		n     int
	}{
		{"empty", 1, 0},
		{"one byte", 1, 1},
		{"under the first size", 1000, 100},
		{"exactly the first size", minCap, 1},
		{"grown many times", 64<<10 + 3, 200},
		{"pieces larger than the buffer", 3 * minCap, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ResetPeak()
			var b Buf
			var want bytes.Buffer
			for i := range tc.n {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, tc.piece)
				p[0] = byte(i)
				if i%2 == 0 {
					b.Append(p)
				} else {
					b.Grow(len(p))
					b.Add(copy(b.Room(), p))
				}
				want.Write(p)
			}
			if !bytes.Equal(b.Bytes(), want.Bytes()) {
				t.Fatalf("holds %d bytes, want the %d appended", b.Len(), want.Len())
			}
			if got := Peak(); got < int64(want.Len()) {
				t.Errorf("Peak %d, want at least %d", got, want.Len())
			}
			b.Free()
			if b.Len() != 0 || b.Bytes() != nil {
				t.Errorf("after Free: %d bytes", b.Len())
			}
			b.Append([]byte("again")) // a freed buffer is a zero Buf, ready to use
			if string(b.Bytes()) != "again" {
				t.Errorf("reused after Free: %q", b.Bytes())
			}
			b.Free()
		})
	}
}

// TestBufReadsAStream: a stream read into Room until its end, as a long line is.
func TestBufReadsAStream(t *testing.T) {
	text := strings.Repeat("0123456789abcdef", 300_000) // 4.8 MB: grown three times
	r := strings.NewReader(text)
	var b Buf
	defer b.Free()
	for {
		b.Grow(32 << 10)
		n, err := r.Read(b.Room())
		b.Add(n)
		if err == io.EOF {
			break
		}
	}
	if string(b.Bytes()) != text {
		t.Fatalf("read %d bytes, want %d", b.Len(), len(text))
	}
}

package compact

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

func TestHashRange(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 100000) // 1.7 MB
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range [][2]int64{{0, 0}, {0, 1}, {1, 4097}, {4095, 4097}, {5000, int64(len(data))}, {0, int64(len(data))}} {
		h := sha256.New()
		if err := hashRange(h, f, r[0], r[1]); err != nil {
			t.Fatal(err)
		}
		if want := sha256.Sum256(data[r[0]:r[1]]); !bytes.Equal(h.Sum(nil), want[:]) {
			t.Errorf("range %v: wrong digest", r)
		}
	}
	// A file shorter than the range (cut while being read) is an error, not a crash.
	if err := os.Truncate(p, 10000); err != nil {
		t.Fatal(err)
	}
	if err := hashRange(sha256.New(), f, 0, int64(len(data))); err == nil {
		t.Error("no error for a range past the end of the file")
	}
}

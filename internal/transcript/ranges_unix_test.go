//go:build unix

package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestRangesReadALongLineInPlace: in a mapped file, a line longer than its range's window (a
// tool result of 100 MB) is read where it is, in a window of its own, not copied into a buffer
// of the heap (which held it whole, and grew by doubling to twice its size).
func TestRangesReadALongLineInPlace(t *testing.T) {
	user := func(s string) string { return fmt.Sprintf("{\"role\":\"user\",\"content\":%q}\n", s) }
	long := user(strings.Repeat("x", 2*inPlaceFrom))
	data := user("a") + long + user("b")
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src := newWindowSource(f)
	if _, mapped := src.(inPlace); !mapped {
		t.Skip("the file is not mapped here")
	}
	r := &rangeResult{}
	readRange(r, src, int64(len(data)), 0, 4096, 128, jsonl.DefaultMaxLine)
	defer r.release()
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.own != nil && cap(*r.own) >= len(long) {
		t.Errorf("the long line was copied whole into a buffer of %d bytes", cap(*r.own))
	}
	if len(r.lines) != 2 || !bytes.Equal(r.lines[1].Bytes, []byte(strings.TrimSuffix(long, "\n"))) {
		t.Errorf("read %d line(s), want the first two, the long one whole", len(r.lines))
	}
}

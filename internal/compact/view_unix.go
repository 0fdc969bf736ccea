//go:build unix

package compact

import (
	"os"
	"syscall"
)

// openView maps bytes [start, end) of f read-only; view(off, n) returns bytes [off, off+n).
func openView(f *os.File, start, end int64) (view func(off, n int64) ([]byte, error), release func(), err error) {
	if end <= start {
		return func(int64, int64) ([]byte, error) { return nil, nil }, func() {}, nil
	}
	page := int64(os.Getpagesize())
	base := start - start%page
	data, err := syscall.Mmap(int(f.Fd()), base, int(end-base), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readView(f)
	}
	return func(off, n int64) ([]byte, error) { return data[off-base : off-base+n], nil },
		func() { syscall.Munmap(data) }, nil
}

//go:build unix

package grep

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only (nil when mapping is not possible).
func mapFile(f *os.File, size int64) ([]byte, func()) {
	if size <= 0 || int64(int(size)) != size {
		return nil, func() {}
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, func() {}
	}
	return data, func() { syscall.Munmap(data) }
}

// dropPages lets the kernel take back the pages of data[from:to] (data being a whole mapping
// from mapFile) once they are searched: peak RSS counts every mapped page touched, a whole file
// otherwise. Reading them again (a snippet, a context line) faults them back in from the page
// cache. The pages at the ends, shared with the neighbouring segments, stay.
func dropPages(data []byte, from, to int) {
	page := os.Getpagesize()
	lo, hi := (from+page-1)/page*page, to/page*page
	if lo < hi {
		_ = unix.Madvise(data[lo:hi], unix.MADV_DONTNEED)
	}
}

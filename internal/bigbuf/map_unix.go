//go:build unix && !linux

package bigbuf

import "golang.org/x/sys/unix"

// Mapped says whether buffers are mappings of their own, outside the Go heap, on this system.
const Mapped = true

// allocate maps size bytes (rounded up to pages), or takes them from the Go heap when the
// system refuses. The pages are zero pages until written: memory is taken only as the buffer
// fills.
func allocate(size int) ([]byte, bool) {
	size = pages(size)
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, 0, size), false
	}
	return m[:0], true
}

// resize grows b's memory to size bytes: a new mapping, b copied into it and unmapped at once.
func resize(b []byte, mapped bool, size int) ([]byte, bool) {
	if !mapped {
		return heapResize(b, size), false
	}
	nb, ok := allocate(size)
	nb = append(nb, b...)
	release(b)
	return nb, ok
}

func release(b []byte) { unix.Munmap(b[:cap(b)]) }

func pages(n int) int {
	p := unix.Getpagesize()
	return (n + p - 1) / p * p
}

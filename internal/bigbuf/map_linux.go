package bigbuf

import "golang.org/x/sys/unix"

// Mapped says whether buffers are mappings of their own, outside the Go heap, on this system.
const Mapped = true

// allocate maps size bytes (rounded up to pages), or takes them from the Go heap when the
// system refuses. The pages are the kernel's zero pages until written: memory is taken only as
// the buffer fills. Transparent huge pages are asked for: a fault per 2 MB rather than per 4 KB
// (ignored where the kernel does not give them).
func allocate(size int) ([]byte, bool) {
	size = pages(size)
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, 0, size), false
	}
	unix.Madvise(m, unix.MADV_HUGEPAGE)
	return m[:0], true
}

// resize grows b's memory to size bytes: the kernel extends the mapping or moves its pages
// elsewhere, without copying them.
func resize(b []byte, mapped bool, size int) ([]byte, bool) {
	if !mapped {
		return heapResize(b, size), false
	}
	size = pages(size)
	m, err := unix.Mremap(b[:cap(b)], size, unix.MREMAP_MAYMOVE)
	if err != nil {
		nb, ok := allocate(size) // the kernel refused: a new mapping, the old one copied once
		nb = append(nb, b...)
		release(b)
		return nb, ok
	}
	return m[:len(b)], true
}

func release(b []byte) { unix.Munmap(b[:cap(b)]) }

func pages(n int) int {
	p := unix.Getpagesize()
	return (n + p - 1) / p * p
}

//go:build !unix

package bigbuf

// Mapped says whether buffers are mappings of their own, outside the Go heap, on this system.
const Mapped = false

// allocate takes size bytes from the Go heap (no mapping here).
func allocate(size int) ([]byte, bool) { return make([]byte, 0, size), false }

func resize(b []byte, _ bool, size int) ([]byte, bool) { return heapResize(b, size), false }

func release([]byte) {}

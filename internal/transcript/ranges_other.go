//go:build !unix

package transcript

import "io"

// newWindowSource reads a text in memory in place (memSource), or the windows of a file.
func newWindowSource(f io.ReaderAt) windowSource {
	if ms, ok := newMemSource(f); ok {
		return ms
	}
	return &readerSource{f: f, free: make(chan []byte, 8)}
}

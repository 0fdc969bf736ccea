//go:build !unix

package transcript

import "io"

// newWindowSource reads the windows of a file.
func newWindowSource(f io.ReaderAt) windowSource {
	return &readerSource{f: f, free: make(chan []byte, 8)}
}

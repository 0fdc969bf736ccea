//go:build !unix

package compact

import "os"

// openView gives access to bytes of f; view(off, n) returns bytes [off, off+n).
func openView(f *os.File, start, end int64) (view func(off, n int64) ([]byte, error), release func(), err error) {
	return readView(f)
}

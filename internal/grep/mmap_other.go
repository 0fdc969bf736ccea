//go:build !unix

package grep

import "os"

// mapFile is not available here: the chunked reader is used instead.
func mapFile(f *os.File, size int64) ([]byte, func()) { return nil, func() {} }

func dropPages(data []byte, from, to int) {}

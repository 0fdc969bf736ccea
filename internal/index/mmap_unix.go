//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only (nil when mapping is not possible).
func mapFile(f *os.File, size int64) ([]byte, func()) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return data, func() { syscall.Munmap(data) }
}

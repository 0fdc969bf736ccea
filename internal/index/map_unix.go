//go:build unix

package index

import (
	"os"
	"syscall"
)

// mapWhole maps a file read-only; false when it cannot be mapped. Grep reads its index's
// manifest mapped: a read would copy it into new memory, a page fault for every 4 KiB, where
// a mapping of a file in the page cache faults in 64 KiB at a time.
func mapWhole(f *os.File, size int64) ([]byte, func(), bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { syscall.Munmap(data) }, true
}

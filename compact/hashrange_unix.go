//go:build unix

package compact

import (
	"fmt"
	"hash"
	"os"
	"runtime/debug"
	"syscall"
)

// hashRange writes bytes [start, end) of f to h. The file is mapped rather than read: the
// middle of a session is most of the file, and hashing it from the page cache in place saves
// copying it all once more. A file cut short while mapped faults; that becomes an error.
func hashRange(h hash.Hash, f *os.File, start, end int64) (err error) {
	if end <= start {
		return nil
	}
	page := int64(os.Getpagesize())
	base := start - start%page
	data, merr := syscall.Mmap(int(f.Fd()), base, int(end-base), syscall.PROT_READ, syscall.MAP_SHARED)
	if merr != nil {
		return hashRead(h, f, start, end) // e.g. a size the address space cannot map
	}
	defer syscall.Munmap(data)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the file changed while it was being read: %v", f.Name(), r)
		}
	}()
	h.Write(data[start-base:])
	return nil
}

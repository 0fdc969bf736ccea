package pretouch

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The madvise advice of Linux 5.14 (not in package syscall), and the auxiliary vector's entry
// for the address of the program headers.
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
	atPhdr            = 3
)

// headSize is how much of the executable is read for its program headers.
const headSize = 4096

func init() {
	go touch(new(heapMark))
}

// heapMark is a heap object whose address says which chunk of the heap is being filled.
type heapMark [64]byte

// touch maps the rest of the heap's chunk, then the executable's code and read-only data. Every
// error is ignored (an old kernel, a sandbox without /proc): the pages are then mapped by
// faults, as they would be without this package.
func touch(mark *heapMark) {
	page := uintptr(os.Getpagesize())
	populate(heapRegion(uintptr(unsafe.Pointer(mark)), page))
	head, phdr := executableHead()
	pc, _, _, _ := runtime.Caller(0)
	for _, r := range codeRegions(head, phdr, pc, page) {
		populate(r)
	}
}

// executableHead reads the start of the running executable (the file mapped, even when it
// was replaced or removed since) and the address its program headers are loaded at.
func executableHead() ([]byte, uintptr) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, _ := f.ReadAt(head, 0)
	auxv, err := unix.Auxv()
	if err != nil {
		return nil, 0
	}
	for _, kv := range auxv {
		if kv[0] == atPhdr {
			return head[:n], kv[1]
		}
	}
	return nil, 0
}

func populate(r region) {
	if r.size == 0 {
		return
	}
	advice := madvPopulateRead
	if r.write {
		advice = madvPopulateWrite
	}
	syscall.Syscall(syscall.SYS_MADVISE, r.addr, r.size, uintptr(advice))
}

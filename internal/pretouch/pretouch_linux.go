package pretouch

import (
	"encoding/binary"
	"os"
	"runtime"
	"syscall"
	"unsafe"
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
// was replaced or removed since) and the address its program headers are loaded at. It imports
// nothing that initializes late (golang.org/x/sys would make it wait for that package): it
// reads the auxiliary vector from /proc.
func executableHead() ([]byte, uintptr) {
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return nil, 0
	}
	phdr, ok := auxvEntry(auxv, atPhdr)
	if !ok {
		return nil, 0
	}
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, _ := f.ReadAt(head, 0)
	return head[:n], phdr
}

// auxvEntry finds an entry of an auxiliary vector: pairs of words (key, value), in the
// machine's byte order.
func auxvEntry(auxv []byte, key uintptr) (uintptr, bool) {
	const word = int(unsafe.Sizeof(uintptr(0)))
	for i := 0; i+2*word <= len(auxv); i += 2 * word {
		k, v := readWord(auxv[i:]), readWord(auxv[i+word:])
		if k == key {
			return v, true
		}
	}
	return 0, false
}

func readWord(b []byte) uintptr {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
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

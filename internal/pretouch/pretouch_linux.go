package pretouch

import (
	"encoding/binary"
	"os"
	"runtime"
	"runtime/metrics"
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

// touch maps the heap the process is about to fill, then the executable's code and read-only
// data. It stops at once when the kernel refuses the first call (before Linux 5.14), and any
// other error is ignored (a sandbox without /proc): the pages are then mapped by faults, as they
// would be without this package.
func touch(mark *heapMark) {
	page := uintptr(os.Getpagesize())
	tail := heapRegion(uintptr(unsafe.Pointer(mark)), page)
	if !populate(tail) {
		return
	}
	for _, r := range spareRegions(tail, page) {
		populate(r)
	}
	head, phdr := executableHead()
	pc, _, _, _ := runtime.Caller(0)
	for _, r := range codeRegions(head, phdr, pc, page) {
		populate(r)
	}
}

// spareRegions, when the rest of the heap chunk (tail) is small, are the heap regions to map
// ahead of the next chunk: the runtime maps a chunk only when an allocation needs it, and a
// query fills 3–4 MB, more than most rests. A spare object one page larger than the rest makes
// the runtime map the next chunk now, while a core is idle; it is garbage at once, and its
// pages are never touched. It is made only when it keeps the heap under 60% of the collector's
// goal (at 70–80% it started a collection, which freed it, and the query then filled its pages
// unmapped).
func spareRegions(tail region, page uintptr) []region {
	if tail.size+page > spareBudget() {
		return nil
	}
	spare := make([]byte, tail.size+page)
	return aroundSpare(tail, uintptr(unsafe.Pointer(&spare[0])), uintptr(len(spare)), page)
}

// spareBudget is how large a spare object may be: 60% of the collector's goal, less the heap's
// objects (0 when the runtime does not say).
func spareBudget() uintptr {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	limit, objects := s[0].Value.Uint64()/5*3, s[1].Value.Uint64()
	if objects >= limit {
		return 0
	}
	return uintptr(min(limit-objects, heapChunk))
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

// populate maps a region's pages; false when the kernel refused.
func populate(r region) bool {
	if r.size == 0 {
		return true
	}
	advice := madvPopulateRead
	if r.write {
		advice = madvPopulateWrite
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, r.addr, r.size, uintptr(advice))
	return errno == 0
}

package pretouch

import (
	"runtime"
	"testing"
	"unsafe"
)

// On the running process (a test binary, built as ctxc is), the executable's code is found,
// and mapping the pages ahead changes nothing the process can see.
func TestThisProcess(t *testing.T) {
	head, phdr := executableHead()
	pc, _, _, _ := runtime.Caller(0)
	regions := codeRegions(head, phdr, pc, page)
	if len(regions) < 2 {
		t.Fatalf("code regions of this process: %#v (program headers at %#x)", regions, phdr)
	}
	mark := new(heapMark)
	mark[0] = 7
	if h := heapRegion(uintptr(unsafe.Pointer(mark)), page); h.size == 0 {
		t.Fatalf("no heap region for %p", mark)
	}
	touch(mark)
	if mark[0] != 7 || mark[1] != 0 {
		t.Fatalf("touching changed the heap: %v", mark[:2])
	}
}

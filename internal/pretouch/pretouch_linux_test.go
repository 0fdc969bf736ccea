package pretouch

import (
	"encoding/binary"
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

func TestAuxvEntry(t *testing.T) {
	word := func(v uint64) []byte {
		if unsafe.Sizeof(uintptr(0)) == 8 {
			return binary.NativeEndian.AppendUint64(nil, v)
		}
		return binary.NativeEndian.AppendUint32(nil, uint32(v))
	}
	var auxv []byte
	for _, kv := range [][2]uint64{{6, 4096}, {atPhdr, 0x400040}, {5, 6}, {0, 0}} {
		auxv = append(append(auxv, word(kv[0])...), word(kv[1])...)
	}
	if v, ok := auxvEntry(auxv, atPhdr); !ok || v != 0x400040 {
		t.Errorf("AT_PHDR = %#x, %v", v, ok)
	}
	if _, ok := auxvEntry(auxv, 99); ok {
		t.Error("found an entry the vector does not hold")
	}
	if _, ok := auxvEntry(auxv[:len(auxv)-3], 0); ok {
		t.Error("read a pair cut short")
	}
}

package pretouch

import (
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// On the running process, plan finds the code that runs and the heap object it is given, and
// mapping them changes nothing the process can see.
func TestPlanOfThisProcess(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	pc, _, _, _ := runtime.Caller(0)
	mark := new(heapMark)
	mark[0] = 7
	heap := uintptr(unsafe.Pointer(mark))
	var code, data bool
	for _, r := range plan(maps, pc, heap, uintptr(os.Getpagesize())) {
		in := func(a uintptr) bool { return r.addr <= a && a < r.addr+r.size }
		code = code || (!r.write && in(pc))
		data = data || (r.write && in(heap))
	}
	if !code || !data {
		t.Fatalf("plan missed the running code (%v) or the heap (%v) in\n%s", code, data, maps)
	}
	touch(mark)
	if mark[0] != 7 || mark[1] != 0 {
		t.Fatalf("touching changed the heap: %v", mark[:2])
	}
}

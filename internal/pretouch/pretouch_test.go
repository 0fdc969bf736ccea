package pretouch

import (
	"reflect"
	"testing"
)

// A static executable's maps: code, read-only data, data and bss, the heap, a mapped file.
const sampleMaps = `00400000-00d6e000 r-xp 00000000 fe:00 11182550                           /usr/bin/ctxc
00d6e000-016d1000 r--p 0096e000 fe:00 11182550                           /usr/bin/ctxc
016d1000-01769000 rw-p 012d1000 fe:00 11182550                           /usr/bin/ctxc
01769000-037b9000 rw-p 00000000 00:00 0 
3d9274000000-3d9276800000 ---p 00000000 00:00 0 
3d9276800000-3d9277000000 rw-p 00000000 00:00 0 
3d9277000000-3d9278000000 ---p 00000000 00:00 0 
7fce4e9a0000-7fce4eb00000 r--s 00000000 fe:00 2222 /tmp/index/seg-000001.i
7ffc57eb4000-7ffc57ed5000 rw-p 00000000 00:00 0                          [stack]
`

func TestPlan(t *testing.T) {
	const page = 4096
	tests := []struct {
		name     string
		maps     string
		pc, heap uintptr
		want     []region
	}{
		{"code, read-only data and the heap's free end", sampleMaps, 0x401234, 0x3d9276c00010, []region{
			{addr: 0x3d9276c00000, size: 0x400000, write: true},
			{addr: 0x400000, size: 0xd6e000 - 0x400000},
			{addr: 0xd6e000, size: 0x16d1000 - 0xd6e000},
		}},
		{"at most maxHeap of the heap", sampleMaps, 0x401234, 0x3d9276800000, []region{
			{addr: 0x3d9276800000, size: 0x800000, write: true},
			{addr: 0x400000, size: 0xd6e000 - 0x400000},
			{addr: 0xd6e000, size: 0x16d1000 - 0xd6e000},
		}},
		{"a heap address in no mapping: code only", sampleMaps, 0x401234, 0x10, []region{
			{addr: 0x400000, size: 0xd6e000 - 0x400000},
			{addr: 0xd6e000, size: 0x16d1000 - 0xd6e000},
		}},
		{"a heap address in a file's mapping: code only", sampleMaps, 0x401234, 0x7fce4e9a0000, []region{
			{addr: 0x400000, size: 0xd6e000 - 0x400000},
			{addr: 0xd6e000, size: 0x16d1000 - 0xd6e000},
		}},
		{"code in no file's mapping: the heap only", sampleMaps, 0x7ffc57eb5000, 0x3d9276fff000, []region{
			{addr: 0x3d9276fff000, size: 0x1000, write: true},
		}},
		{"no maps", "", 0x401234, 0x3d9276c00010, nil},
		{"lines it cannot read are skipped", "garbage\n0-0 r-xp 0 fe:00 1\nzz-yy r-xp 0 fe:00 1\n00400000-00500000 r-xp 00000000 fe:00 7 /x\n", 0x400000, 0, []region{
			{addr: 0x400000, size: 0x100000},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plan([]byte(tt.maps), tt.pc, tt.heap, page)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("plan = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// Every region plan gives lies inside one mapping of the text it read, whatever that text.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(sampleMaps), uint64(0x401234), uint64(0x3d9276c00010))
	f.Add([]byte("1-2 rw-p 0 0 0\n"), uint64(1), uint64(1))
	f.Fuzz(func(t *testing.T, maps []byte, pc, heap uint64) {
		ms := parseMaps(maps)
		for _, r := range plan(maps, uintptr(pc), uintptr(heap), 4096) {
			if r.size == 0 {
				t.Fatalf("empty region %#v", r)
			}
			inside := false
			for _, m := range ms {
				if m.lo <= r.addr && r.addr+r.size <= m.hi && r.addr+r.size > r.addr {
					inside = true
				}
			}
			if !inside {
				t.Fatalf("region %#v outside every mapping of %q", r, maps)
			}
		}
	})
}

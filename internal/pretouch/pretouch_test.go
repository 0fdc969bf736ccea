package pretouch

import (
	"encoding/binary"
	"reflect"
	"testing"
)

const page = 4096

func TestHeapRegion(t *testing.T) {
	tests := []struct {
		name string
		heap uintptr
		want region
	}{
		{"from the object's page to the end of its chunk", 0x3d9276c01010, region{addr: 0x3d9276c01000, size: 0x3ff000, write: true}},
		{"an object at a chunk's start: the whole chunk", 0x3d9276c00000, region{addr: 0x3d9276c00000, size: heapChunk, write: true}},
		{"an object in a chunk's last page", 0xc000fff008, region{addr: 0xc000fff000, size: page, write: true}},
		{"the end of the address space: nothing", ^uintptr(0) - 10, region{write: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := heapRegion(tt.heap, page); got != tt.want {
				t.Errorf("heapRegion(%#x) = %#v, want %#v", tt.heap, got, tt.want)
			}
		})
	}
}

func TestAroundSpare(t *testing.T) {
	const chunk = 0x3d9276c00000
	tail := region{addr: chunk + 0x300000, size: 0x100000, write: true}
	tests := []struct {
		name string
		q, n uintptr
		want []region
	}{
		{"spare at the start of the next chunk: the rest of that chunk", chunk + heapChunk, 0x101000, []region{
			{addr: chunk + heapChunk + 0x101000, size: heapChunk - 0x101000, write: true},
		}},
		{"objects before the spare in the next chunk: mapped too", chunk + heapChunk + 0x20000, 0x101000, []region{
			{addr: chunk + heapChunk, size: 0x20000, write: true},
			{addr: chunk + heapChunk + 0x121000, size: heapChunk - 0x121000, write: true},
		}},
		{"spare in a hole below the tail: the rest of the hole's chunk", chunk + 0x10000, 0x101000, []region{
			{addr: chunk + 0x111000, size: heapChunk - 0x111000, write: true},
		}},
		{"spare far away: after the spare only", chunk + 5*heapChunk, 0x1000, []region{
			{addr: chunk + 5*heapChunk + 0x1000, size: heapChunk - 0x1000, write: true},
		}},
		{"spare ending at the end of the address space: nothing", ^uintptr(0) - 0xfff, 0x1000, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := aroundSpare(tail, tt.q, tt.n, page); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("aroundSpare = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// elfHead builds the head of an ELF file with these program headers (type, flags, vaddr, memsz).
func elfHead(phdrs ...[4]uint64) []byte {
	le := binary.LittleEndian
	b := make([]byte, elfHeaderSize+len(phdrs)*phdrSize)
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint64(b[32:], elfHeaderSize)
	le.PutUint16(b[54:], phdrSize)
	le.PutUint16(b[56:], uint16(len(phdrs)))
	for i, p := range phdrs {
		h := b[elfHeaderSize+i*phdrSize:]
		le.PutUint32(h, uint32(p[0]))
		le.PutUint32(h[4:], uint32(p[1]))
		le.PutUint64(h[16:], p[2])
		le.PutUint64(h[40:], p[3])
	}
	return b
}

// The program headers of a static ctxc (go build, CGO_ENABLED=0).
var staticHead = elfHead(
	[4]uint64{ptPhdr, 4, 0x400040, 0x150},
	[4]uint64{4, 4, 0x400f78, 0x64}, // a note
	[4]uint64{ptLoad, 4 | pfX, 0x400000, 0x96ebf1},
	[4]uint64{ptLoad, 4, 0xd6f000, 0x963aa8},
	[4]uint64{ptLoad, 4 | pfW, 0x16d3000, 0x20e7f20},
)

func TestCodeRegions(t *testing.T) {
	const bias = 0x555555554000 - 0x400000 // where a position-independent build was loaded
	tests := []struct {
		name     string
		head     []byte
		phdr, pc uintptr
		want     []region
	}{
		{"code and read-only data of a static build", staticHead, 0x400040, 0x401234, []region{
			{addr: 0x400000, size: 0x96ebf1},
			{addr: 0xd6f000, size: 0x963aa8},
		}},
		{"a position-independent build, where it was loaded", staticHead, bias + 0x400040, bias + 0x401234, []region{
			{addr: bias + 0x400000, size: 0x96ebf1},
			{addr: bias + 0xd6f000, size: 0x963aa8},
		}},
		{"code that is not the running code's: nothing", staticHead, 0x400040, 0x7f0000001000, nil},
		{"the running code in read-only data: nothing", staticHead, 0x400040, 0xd70000, nil},
		{"program headers loaded below their address: nothing", staticHead, 0x40, 0x401234, nil},
		{"no PT_PHDR: nothing", elfHead([4]uint64{ptLoad, 5, 0x400000, 0x1000}), 0x400040, 0x400100, nil},
		{"not ELF", []byte("#!/bin/sh\necho hi\n"), 0x400040, 0x401234, nil},
		{"32-bit ELF", append([]byte("\x7fELF\x01\x01"), make([]byte, 100)...), 0x400040, 0x401234, nil},
		{"program headers cut short", staticHead[:elfHeaderSize+2*phdrSize+10], 0x400040, 0x401234, nil},
		{"nothing read", nil, 0x400040, 0x401234, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeRegions(tt.head, tt.phdr, tt.pc, page); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("codeRegions = %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

// Whatever the bytes read, codeRegions gives regions that hold the running code's segment and
// never wrap around the address space.
func FuzzCodeRegions(f *testing.F) {
	f.Add(staticHead, uint64(0x400040), uint64(0x401234))
	f.Add([]byte("\x7fELF\x02\x01"), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, head []byte, phdr, pc uint64) {
		regions := codeRegions(head, uintptr(phdr), uintptr(pc), page)
		runs := false
		for _, r := range regions {
			if r.size == 0 || r.addr+r.size < r.addr || r.write {
				t.Fatalf("bad region %#v", r)
			}
			runs = runs || (r.addr <= uintptr(pc) && uintptr(pc) < r.addr+r.size)
		}
		if len(regions) > 0 && !runs {
			t.Fatalf("regions %#v without the running code %#x", regions, pc)
		}
	})
}

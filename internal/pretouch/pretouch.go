// Package pretouch maps, as ctxc starts, the memory pages its process is about to touch: the
// executable's code and read-only data, and the heap it is about to fill. A process that
// touches a page for the first time takes a page fault, and a ctxc query touches more than a
// thousand; on virtual machines that trap each fault to the hypervisor, they cost 10–15 µs
// each, a third of a `ctxc grep --index` or of `ctxc --version`. One madvise call
// (MADV_POPULATE_READ / MADV_POPULATE_WRITE, Linux 5.14 and later) maps the same pages for a
// tenth of that, on a goroutine of its own while the packages initialize on the other core.
//
// It changes nothing a program can observe: pages are mapped as a fault would map them (the
// heap's stay zero), a kernel without the calls refuses them, and any failure is ignored.
// main.go imports it first, so that it starts before the heavier packages initialize.
package pretouch

import "encoding/binary"

// heapChunk is the unit in which the Go runtime maps its heap on 64-bit systems (its
// pallocChunkBytes), aligned on it: the chunk that holds a heap object is mapped whole.
const heapChunk = 4 << 20

// region is a range of memory to map; write: the pages will be written (the heap), else read
// (code and read-only data).
type region struct {
	addr, size uintptr
	write      bool
}

// heapRegion is the rest of the heap chunk that holds the object at heap, from its page on.
func heapRegion(heap, pageSize uintptr) region {
	from := heap &^ (pageSize - 1)
	to := (heap | (heapChunk - 1)) + 1
	if to <= from { // the last chunk of the address space: nothing sane
		return region{write: true}
	}
	return region{addr: from, size: to - from, write: true}
}

// aroundSpare are the heap regions to map, besides the rest of the chunk (tail, mapped
// first), once a spare object of n bytes, made larger than the tail so that the runtime maps its
// next chunk, was placed at q: the start of the next chunk before the spare, when the runtime
// put other objects there, and the rest of the chunk after the spare. The spare itself is
// garbage, never touched.
func aroundSpare(tail region, q, n, pageSize uintptr) []region {
	var regions []region
	if end := tail.addr + tail.size; q > end && q-end <= 2*heapChunk {
		regions = append(regions, region{addr: end, size: q - end, write: true})
	}
	if end := q + n; end > q {
		if r := heapRegion(end, pageSize); r.size > 0 {
			regions = append(regions, r)
		}
	}
	return regions
}

// The parts of ELF (64-bit, little-endian) that codeRegions reads.
const (
	elfHeaderSize = 64
	phdrSize      = 56
	ptLoad        = 1
	ptPhdr        = 6
	pfX           = 1
	pfW           = 2
)

// codeRegions gives the segments of an executable that are loaded and not writable (its code
// and read-only data), where they are in memory: head is the start of the executable's file
// (its ELF header and program headers), phdr the address its program headers are loaded at
// (the auxiliary vector's AT_PHDR), pc an address of its running code. It gives none when head
// is not such an executable, or when pc is not in one of its code segments.
func codeRegions(head []byte, phdr, pc, pageSize uintptr) []region {
	loads, phdrVaddr, ok := programHeaders(head)
	if !ok || phdr < phdrVaddr {
		return nil
	}
	bias := phdr - phdrVaddr // where a position-independent executable was loaded
	var regions []region
	runs := false
	for _, l := range loads {
		lo := (bias + l.vaddr) &^ (pageSize - 1)
		hi := bias + l.vaddr + l.memsz
		if hi <= lo || l.flags&pfW != 0 {
			continue
		}
		runs = runs || (l.flags&pfX != 0 && lo <= pc && pc < hi)
		regions = append(regions, region{addr: lo, size: hi - lo})
	}
	if !runs {
		return nil
	}
	return regions
}

// load is a PT_LOAD program header.
type load struct {
	vaddr, memsz uintptr
	flags        uint32
}

// programHeaders reads an ELF file's head: its loaded segments and the address of its
// program headers (PT_PHDR).
func programHeaders(head []byte) (loads []load, phdrVaddr uintptr, ok bool) {
	if len(head) < elfHeaderSize || string(head[:4]) != "\x7fELF" || head[4] != 2 || head[5] != 1 {
		return nil, 0, false // not ELF, 64-bit, little-endian
	}
	le := binary.LittleEndian
	off, size, n := le.Uint64(head[32:]), uint64(le.Uint16(head[54:])), uint64(le.Uint16(head[56:]))
	if size != phdrSize || off > uint64(len(head)) || n > (uint64(len(head))-off)/phdrSize {
		return nil, 0, false // program headers beyond what was read
	}
	found := false
	for i := range n {
		h := head[off+i*phdrSize:]
		vaddr, memsz := le.Uint64(h[16:]), le.Uint64(h[40:])
		if uint64(uintptr(vaddr)) != vaddr || uint64(uintptr(memsz)) != memsz {
			return nil, 0, false
		}
		switch le.Uint32(h) {
		case ptLoad:
			loads = append(loads, load{vaddr: uintptr(vaddr), memsz: uintptr(memsz), flags: le.Uint32(h[4:])})
		case ptPhdr:
			phdrVaddr, found = uintptr(vaddr), true
		}
	}
	return loads, phdrVaddr, found
}

// Package pretouch maps, as ctxc starts, the memory pages its process is about to touch: the
// executable's code and read-only data, and the free end of the heap's first mapping. A
// process that touches a page for the first time takes a page fault, and a ctxc query touches
// more than a thousand; on virtual machines that trap each fault to the hypervisor, they cost
// 10–15 µs each, a third of a `ctxc grep --index` or of `ctxc --version`. One madvise call
// (MADV_POPULATE_READ / MADV_POPULATE_WRITE, Linux 5.14 and later) maps the same pages for a
// tenth of that, on a goroutine of its own while the packages initialize on the other core.
//
// It changes nothing a program can observe: pages are mapped as a fault would map them (the
// heap's stay zero), a kernel without the calls refuses them, and any failure is ignored.
// main.go imports it first, so that it starts before the heavier packages initialize.
package pretouch

import (
	"bytes"
	"strconv"
)

// maxHeap bounds the heap bytes mapped ahead: about what a query allocates.
const maxHeap = 8 << 20

// region is a range of memory to map; write: the pages will be written (the heap), else read
// (code and read-only data).
type region struct {
	addr, size uintptr
	write      bool
}

// mapping is one line of /proc/self/maps.
type mapping struct {
	lo, hi   uintptr
	writable bool
	file     string // device and inode: "fe:00 11182550"; "" when anonymous
}

// plan gives the regions to map from the text of /proc/self/maps: every read-only mapping of
// the file that holds pc (the running code), and the heap's mapping that holds heap, from
// heap's page to its end (at most maxHeap bytes). Lines it cannot read are skipped.
func plan(maps []byte, pc, heap, pageSize uintptr) []region {
	ms := parseMaps(maps)
	var regions []region
	if m, ok := holding(ms, heap); ok && m.writable && m.file == "" {
		from := max(heap&^(pageSize-1), m.lo)
		regions = append(regions, region{addr: from, size: min(m.hi-from, maxHeap), write: true})
	}
	code, ok := holding(ms, pc)
	if !ok || code.file == "" {
		return regions
	}
	for _, m := range ms {
		if m.file == code.file && !m.writable {
			regions = append(regions, region{addr: m.lo, size: m.hi - m.lo})
		}
	}
	return regions
}

// holding finds the mapping that holds addr.
func holding(ms []mapping, addr uintptr) (mapping, bool) {
	for _, m := range ms {
		if m.lo <= addr && addr < m.hi {
			return m, true
		}
	}
	return mapping{}, false
}

// parseMaps reads the lines "lo-hi perms offset dev inode [path]" of /proc/self/maps.
func parseMaps(b []byte) []mapping {
	var ms []mapping
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		if m, ok := parseMapping(line); ok {
			ms = append(ms, m)
		}
	}
	return ms
}

func parseMapping(line []byte) (mapping, bool) {
	f := bytes.Fields(line)
	if len(f) < 5 || len(f[1]) < 2 {
		return mapping{}, false
	}
	los, his, ok := bytes.Cut(f[0], []byte{'-'})
	lo, err1 := strconv.ParseUint(string(los), 16, 64)
	hi, err2 := strconv.ParseUint(string(his), 16, 64)
	if !ok || err1 != nil || err2 != nil || lo >= hi || uint64(uintptr(hi)) != hi {
		return mapping{}, false
	}
	m := mapping{lo: uintptr(lo), hi: uintptr(hi), writable: f[1][1] == 'w'}
	if string(f[4]) != "0" {
		m.file = string(f[3]) + " " + string(f[4])
	}
	return m, true
}

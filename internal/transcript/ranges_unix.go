//go:build unix

package transcript

import (
	"io"
	"os"
	"syscall"
)

// newWindowSource reads a text in memory in place (memSource), maps the windows of a file (no copy of the page cache: the workers read the
// cached pages themselves), or reads them when f is not a file or cannot be mapped.
func newWindowSource(f io.ReaderAt) windowSource {
	if ms, ok := newMemSource(f); ok {
		return ms
	}
	rs := &readerSource{f: f, free: make(chan []byte, 8)}
	file, _ := f.(*os.File)
	base := int64(0)
	if sr, ok := f.(*io.SectionReader); ok {
		outer, off, _ := sr.Outer()
		file, _ = outer.(*os.File)
		base = off
	}
	if file == nil {
		return rs
	}
	return &mmapSource{f: file, base: base, page: int64(os.Getpagesize()), fallback: rs}
}

// mmapSource maps each window read-only and unmaps it when released: the pages mapped at any
// time stay as few as the windows in flight. The worker's first read of each page faults it
// in: MAP_POPULATE did the same work up front, but in the mmap call, where two workers' calls
// did not run side by side (measured on 2 cores: populating 1 GB took as long with two
// workers as with one, faulting it took a third less).
type mmapSource struct {
	f        *os.File
	base     int64 // offset of the reader's byte 0 in the file
	page     int64
	fallback *readerSource
}

func (s *mmapSource) window(off int64, n int) ([]byte, func(), error) {
	if n == 0 {
		return nil, func() {}, nil
	}
	at := s.base + off
	start := at - at%s.page
	data, err := syscall.Mmap(int(s.f.Fd()), start, int(at-start)+n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return s.fallback.window(off, n)
	}
	return data[at-start:], func() { syscall.Munmap(data) }, nil
}

func (s *mmapSource) readAt(b []byte, off int64) error { return s.fallback.readAt(b, off) }

// mapWindow is window without the fallback: bytes [off, off+n) of the file, mapped, or the
// error of the mapping (inPlace).
func (s *mmapSource) mapWindow(off int64, n int) ([]byte, func(), error) {
	at := s.base + off
	start := at - at%s.page
	data, err := syscall.Mmap(int(s.f.Fd()), start, int(at-start)+n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data[at-start:], func() { syscall.Munmap(data) }, nil
}

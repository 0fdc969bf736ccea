//go:build unix

package grep

import (
	"io"
	"syscall"
)

// partsFile is a session opened only to read some of its parts: a descriptor and pread, with
// none of os.File's set-up (a stat, a look for the poller, flags set and reset), which costs
// more system calls than the reads of a query that wants two blocks of the file.
type partsFile struct{ fd int }

func openParts(path string) (*partsFile, int64, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			syscall.Close(fd)
			return nil, 0, errNotParts
		}
		return &partsFile{fd: fd}, st.Size, nil
	}
}

func (f *partsFile) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Pread(f.fd, b[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF // (as os.File says it: the file was cut short meanwhile)
		}
		n += m
	}
	return n, nil
}

func (f *partsFile) Close() error { return syscall.Close(f.fd) }

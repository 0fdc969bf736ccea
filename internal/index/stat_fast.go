//go:build linux && (amd64 || arm64)

package index

import (
	"io/fs"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statter stats paths (following links) with one system call each and no allocation: an
// archive's thousands of stats would otherwise each copy their path to a new buffer and build
// an os.FileInfo, memory that a short query pays for in page faults.
type statter struct {
	path []byte // the path being stated, NUL-terminated
	st   unix.Stat_t
}

func (s *statter) stat(path string) (fileStat, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return fileStat{}, &fs.PathError{Op: "stat", Path: path, Err: syscall.EINVAL}
	}
	s.path = append(append(s.path[:0], path...), 0)
	cwd := unix.AT_FDCWD
	for {
		_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(cwd), uintptr(unsafe.Pointer(&s.path[0])), uintptr(unsafe.Pointer(&s.st)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return fileStat{}, &fs.PathError{Op: "stat", Path: path, Err: e}
		}
		return fileStat{size: s.st.Size, mtime: s.st.Mtim.Sec*1e9 + s.st.Mtim.Nsec}, nil
	}
}

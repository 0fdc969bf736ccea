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
	if err := s.call(path, "stat", 0); err != nil {
		return fileStat{}, err
	}
	return fileStat{size: s.st.Size, mtime: s.st.Mtim.Sec*1e9 + s.st.Mtim.Nsec}, nil
}

// lstat stats a path without following a link: whether it is a folder, and its time.
func (s *statter) lstat(path string) (isDir bool, mtime int64, err error) {
	if err := s.call(path, "lstat", unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false, 0, err
	}
	return s.st.Mode&unix.S_IFMT == unix.S_IFDIR, s.st.Mtim.Sec*1e9 + s.st.Mtim.Nsec, nil
}

// call is the system call of stat and lstat (op, for the error), into s.st.
func (s *statter) call(path, op string, flags int) error {
	if strings.IndexByte(path, 0) >= 0 {
		return &fs.PathError{Op: op, Path: path, Err: syscall.EINVAL}
	}
	s.path = append(append(s.path[:0], path...), 0)
	cwd := unix.AT_FDCWD
	for {
		_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(cwd), uintptr(unsafe.Pointer(&s.path[0])), uintptr(unsafe.Pointer(&s.st)), uintptr(flags), 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return &fs.PathError{Op: op, Path: path, Err: e}
		}
		return nil
	}
}

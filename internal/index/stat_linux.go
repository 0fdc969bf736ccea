package index

import (
	"io/fs"
	"syscall"
)

// statPath stats a path (following links) without building an os.FileInfo: an archive's
// thousands of stats then allocate nothing that lives.
func statPath(path string) (fileStat, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileStat{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		break
	}
	return fileStat{size: st.Size, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec}, nil
}

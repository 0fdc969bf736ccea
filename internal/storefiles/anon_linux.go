package storefiles

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// anonymousFile is a file in memory, gone when closed.
func anonymousFile(kind string) (*os.File, error) {
	name := "ctxc-" + kind + "-session"
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return anonymousTempFile(kind)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// reopen opens f's file again, with an offset of its own.
func reopen(f *os.File) (*os.File, error) {
	return os.Open("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}

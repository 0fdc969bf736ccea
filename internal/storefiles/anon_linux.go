package storefiles

import (
	"os"

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

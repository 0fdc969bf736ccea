package opencodestore

import (
	"os"

	"golang.org/x/sys/unix"
)

// anonymousFile is a file in memory, gone when closed.
func anonymousFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("ctxc-opencode-session", unix.MFD_CLOEXEC)
	if err != nil {
		return anonymousTempFile()
	}
	return os.NewFile(uintptr(fd), "ctxc-opencode-session"), nil
}

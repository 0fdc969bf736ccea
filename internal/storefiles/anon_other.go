//go:build !linux

package storefiles

import (
	"errors"
	"os"
)

// anonymousFile is a temporary file, removed at once where the system allows it.
func anonymousFile(kind string) (*os.File, error) { return anonymousTempFile(kind) }

// reopen: an unlinked temporary file cannot be opened again here.
func reopen(*os.File) (*os.File, error) { return nil, errors.ErrUnsupported }

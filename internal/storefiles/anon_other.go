//go:build !linux

package storefiles

import "os"

// anonymousFile is a temporary file, removed at once where the system allows it.
func anonymousFile(kind string) (*os.File, error) { return anonymousTempFile(kind) }

//go:build !linux

package opencodestore

import "os"

// anonymousFile is a temporary file, removed at once where the system allows it.
func anonymousFile() (*os.File, error) { return anonymousTempFile() }

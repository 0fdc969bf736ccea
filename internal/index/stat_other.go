//go:build !linux || !(amd64 || arm64)

package index

import "os"

// statter stats paths (following links).
type statter struct{}

func (statter) stat(path string) (fileStat, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}, nil
}

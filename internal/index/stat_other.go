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

// lstat stats a path without following a link: whether it is a folder, and its time.
func (statter) lstat(path string) (isDir bool, mtime int64, err error) {
	info, err := os.Lstat(path)
	if err != nil {
		return false, 0, err
	}
	return info.IsDir(), info.ModTime().UnixNano(), nil
}

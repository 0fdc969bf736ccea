//go:build !linux

package index

import "os"

// statPath stats a path (following links).
func statPath(path string) (fileStat, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}, nil
}

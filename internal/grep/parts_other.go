//go:build !unix

package grep

import "os"

// partsFile is an os.File where there is no bare descriptor to read with pread.
type partsFile struct{ *os.File }

func openParts(path string) (*partsFile, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, errNotParts
	}
	return &partsFile{f}, info.Size(), nil
}

//go:build !unix

package compact

import (
	"hash"
	"os"
)

// hashRange writes bytes [start, end) of f to h.
func hashRange(h hash.Hash, f *os.File, start, end int64) error {
	return hashRead(h, f, start, end)
}

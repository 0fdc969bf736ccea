//go:build !amd64

package strscan

const cpuHasKernels = false

func plainEnd(s string, i int) int                       { return i }
func countChars(s string) (chars, n int)                 { return 0, 0 }
func quoteEnd(s string, i int) int                       { return i }
func pairScan(b []byte, i, o1, o2 int, bytes uint32) int { return -1 - i }
func pairEither(b []byte, i, o1, o2 int, bytes uint32, q1, q2 int, qbytes uint32) int {
	return -1 - i
}

//go:build !amd64

package strscan

const cpuHasKernels = false

func plainEnd(s string, i int) int       { return i }
func countChars(s string) (chars, n int) { return 0, 0 }
func quoteEnd(s string, i int) int       { return i }

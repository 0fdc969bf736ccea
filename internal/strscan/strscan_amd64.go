package strscan

import "golang.org/x/sys/cpu"

// The kernels need AVX2 and POPCNT (x86-64 CPUs since 2013); without them the callers' own
// loops do the work.
var cpuHasKernels = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

func plainEnd(s string, i int) int { return plainEndAVX2(s, i) }

func countChars(s string) (chars, n int) { return countCharsAVX2(s) }

func quoteEnd(s string, i int) int { return quoteEndAVX2(s, i) }

func pairScan(b []byte, i, o1, o2 int, bytes uint32) int { return pairScanAVX2(b, i, o1, o2, bytes) }

func pairEither(b []byte, i, o1, o2 int, bytes uint32, q1, q2 int, qbytes uint32) int {
	return pairEitherAVX2(b, i, o1, o2, bytes, q1, q2, qbytes)
}

//go:noescape
func plainEndAVX2(s string, i int) int

//go:noescape
func countCharsAVX2(s string) (chars, n int)

//go:noescape
func quoteEndAVX2(s string, i int) int

//go:noescape
func pairScanAVX2(b []byte, i, o1, o2 int, bytes uint32) int

//go:noescape
func pairEitherAVX2(b []byte, i, o1, o2 int, bytes uint32, q1, q2 int, qbytes uint32) int

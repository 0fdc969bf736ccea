// Package strscan holds the loops that `ctxc stats` spends most of its time in, over the
// text inside JSON strings: finding where a plain run ends (validation), counting the code
// points a string decodes to (the chars/4 estimate), and finding where a string ends. On
// amd64 with AVX2 they read 64 bytes a step and find escaped bytes without a branch per escape
// (transcripts of code and logs have one every 20-40 bytes: a loop that stops at each escape
// runs at a third of the speed); elsewhere they do nothing and the caller's own loop does all
// the work. The tests hold them
// to a byte-at-a-time reference on every alignment, and the callers' tests to gjson.
//
// Two more kernels serve grep's prefilter: PairScan and PairEither look for two bytes of a
// literal at their offsets at once (ripgrep's "packed pair"), and for a second pair in the
// same pass (grep: a \u escape).
//
// The kernels may stop early, within the last bytes of their input, and the caller goes on
// from where they stopped with its portable loop: they only ever make a caller faster.
// PlainRun (lex.go) is that loop for validators; lex.go also holds the other small pieces
// both of ctxc's validators share (numbers, white space, literals).
package strscan

import "sync/atomic"

// SimpleEscape marks the bytes that may follow a backslash in a two-byte JSON escape.
var SimpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// PlainEnd returns an index j >= i of s such that s[i:j] holds no quote, no control character
// (below 0x20) and no backslash except those starting a two-byte escape (\n, \", \\...), which
// it steps over whole. It stops at the first byte that ends such a run, or earlier within the
// last 65 bytes of s, or at i when there is no kernel.
func PlainEnd(s string, i int) int {
	if i < 0 || len(s)-i < MinLen || !haveKernels.Load() {
		return i
	}
	return plainEnd(s, i)
}

// CountChars counts the code points of the beginning of a JSON string's text (between its
// quotes) without decoding it: a two-byte escape counts as the one character it stands for,
// any other byte counts unless it is a UTF-8 continuation byte. It returns the characters of
// s[:n]; it stops at a \u escape (n is the backslash's index), at a backslash that ends s, or
// earlier within the last 65 bytes of s; n is 0 when there is no kernel.
func CountChars(s string) (chars, n int) {
	if len(s) < MinLen || !haveKernels.Load() {
		return 0, 0
	}
	return countChars(s)
}

// QuoteEnd returns an index j >= i of s such that s[i:j] holds no quote that a backslash does
// not escape, s[i] being inside a JSON string and not escaped by the byte before it. It stops at
// the first such quote, or earlier within the last 65 bytes of s, or at i when there is no
// kernel. Unlike PlainEnd it does not validate: it measures strings that are known valid.
func QuoteEnd(s string, i int) int {
	if i < 0 || len(s)-i < MinLen || !haveKernels.Load() {
		return i
	}
	return quoteEnd(s, i)
}

// Pair is two bytes of a literal at their offsets in it, each matched as either of two
// values (a letter's two cases, or the same byte twice): PairScan looks for both at once.
type Pair struct {
	O1, O2 int
	C1, C2 [2]byte
}

// PairScan returns the first position p >= i of b at which b[p+O1] is one of C1 and b[p+O2]
// one of C2 (found), where a literal that holds the pair may start; or, when it stops without
// finding one, within the last bytes of b or at i when there is no kernel, where the caller's
// own loop goes on (positions before it hold no pair). A found p may be such that the literal
// would end past b.
func PairScan(b []byte, i int, pr *Pair) (p int, found bool) {
	if i < 0 || len(b)-i-max(pr.O1, pr.O2) < MinLen || !haveKernels.Load() {
		return i, false
	}
	r := pairScan(b, i, pr.O1, pr.O2, pr.bytes())
	if r >= 0 {
		return r, true
	}
	return -1 - r, false
}

// PairEither is PairScan for either of two pairs: a found p has one of them (or both), and
// the caller tells which. The second pair's bytes are matched as C1[0] and C2[0].
func PairEither(b []byte, i int, pr, qr *Pair) (p int, found bool) {
	if i < 0 || len(b)-i-max(pr.O1, pr.O2, qr.O1, qr.O2) < MinLen || !haveKernels.Load() {
		return i, false
	}
	r := pairEither(b, i, pr.O1, pr.O2, pr.bytes(), qr.O1, qr.O2, uint32(qr.C1[0])|uint32(qr.C2[0])<<8)
	if r >= 0 {
		return r, true
	}
	return -1 - r, false
}

func (pr *Pair) bytes() uint32 {
	return uint32(pr.C1[0]) | uint32(pr.C1[1])<<8 | uint32(pr.C2[0])<<16 | uint32(pr.C2[1])<<24
}

// UseKernels turns the kernels off, or back on where the CPU has them, and reports whether they
// were on: tests run the callers both ways, so that the portable loops stay tested on amd64.
func UseKernels(on bool) (was bool) {
	return haveKernels.Swap(on && cpuHasKernels)
}

// Kernels reports whether the kernels run (a caller may then pick a way that relies on them).
func Kernels() bool { return haveKernels.Load() }

// haveKernels says whether the kernels run: atomic only so that a test may turn them off while
// another goroutine reads (a plain load on amd64).
var haveKernels atomic.Bool

func init() { haveKernels.Store(cpuHasKernels) }

// MinLen is the shortest input the kernels read: they do nothing with less.
const MinLen = 64

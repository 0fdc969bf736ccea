// Package bigbuf holds one long run of bytes read from a stream whose length is known only at
// its end: a line of 100 MB read from standard input or from an archived session, the text of
// an archived session before it is spilled to a file. A byte slice grown by append or by
// doubling copies what it holds at each step and leaves the old arrays to the collector, so
// that reading such a line took several times its size. A Buf grows without copying where the
// system allows it, and its memory is its own: Free gives it back at once.
//
// On Linux a Buf is an anonymous mapping that the kernel grows or moves by its page tables
// (mremap), never copied; elsewhere on Unix, a mapping copied once per doubling, the old one
// unmapped at once; elsewhere, the Go heap (doubling, the old array dropped at once). Mapped
// memory is outside the Go heap: it does not count against the collector's memory limit, and
// no collection waits to return it.
package bigbuf

import "sync/atomic"

// Buf is a growable byte buffer. The zero Buf is empty and ready to use. Its bytes stay where
// they are until it grows or is freed: a slice of them must not be used after either.
type Buf struct {
	b      []byte // len: the bytes held; cap: the memory the buffer has
	mapped bool   // b is a mapping of its own (else the Go heap)
}

// minCap is the first size of a buffer: lines shorter than a megabyte are rarely gathered here.
const minCap = 1 << 20

// Bytes returns the bytes held.
func (b *Buf) Bytes() []byte { return b.b }

// Len is the number of bytes held.
func (b *Buf) Len() int { return len(b.b) }

// Append adds p at the end, growing the buffer when it has no room.
func (b *Buf) Append(p []byte) {
	b.Grow(len(p))
	n := copy(b.b[len(b.b):cap(b.b)], p)
	b.Add(n)
}

// Room is the memory after the bytes held, to read into (Add says how much was read).
func (b *Buf) Room() []byte { return b.b[len(b.b):cap(b.b)] }

// Add counts n more bytes of Room as held.
func (b *Buf) Add(n int) {
	b.b = b.b[:len(b.b)+n]
	noteHeld(int64(n))
}

// Grow makes room for n more bytes: at least twice the memory the buffer has, so that growing
// a line of any length takes few steps.
func (b *Buf) Grow(n int) {
	if cap(b.b)-len(b.b) >= n {
		return
	}
	size := max(2*cap(b.b), len(b.b)+n, minCap)
	if b.b == nil {
		b.b, b.mapped = allocate(size)
		return
	}
	b.b, b.mapped = resize(b.b, b.mapped, size)
}

// Free gives the buffer's memory back and empties it.
func (b *Buf) Free() {
	noteHeld(-int64(len(b.b)))
	if b.mapped {
		release(b.b)
	}
	*b = Buf{}
}

// held is the number of bytes all buffers hold, peak its highest since ResetPeak: what a
// test counts besides the Go heap's allocations.
var held, peak atomic.Int64

func noteHeld(n int64) {
	h := held.Add(n)
	for {
		p := peak.Load()
		if h <= p || peak.CompareAndSwap(p, h) {
			return
		}
	}
}

// Held is the number of bytes buffers hold now (a test checks that every buffer was freed).
func Held() int64 { return held.Load() }

// Peak is the most bytes buffers held at once since ResetPeak.
func Peak() int64 { return peak.Load() }

// ResetPeak starts Peak again from what buffers hold now.
func ResetPeak() { peak.Store(held.Load()) }

// heapResize is resize for a buffer on the Go heap: one new array, the old one dropped.
func heapResize(b []byte, size int) []byte {
	nb := make([]byte, len(b), size)
	copy(nb, b)
	return nb
}

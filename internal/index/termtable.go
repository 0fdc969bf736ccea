package index

import (
	"encoding/binary"
	"math/bits"
)

// termTable maps a segment's terms to their ids: open addressing with linear probing, which
// the builder looks up once for every word of the text (a Go map of strings spent most of a
// build hashing and probing). A slot is two words: the term's first 8 bytes, and its length,
// part of its hash and its id. Most terms are 8 bytes or shorter, and such a term is found
// from its slot alone; a longer one is then compared with its string (the ids' terms, strs).
// A table larger than the caches pays a miss for each place a lookup reads: one, where a
// slot pointing to entries and strings made it three or four.
//
// In front of it, recent holds the last term found for each of recentSlots values of the
// hash's upper bits, slots as the table's: a few thousand words make most of a text's
// occurrences, and they are found there, in 64 KiB the caches keep, where the table's
// slots of the same words were pushed out of the caches between two of their occurrences.
type termTable struct {
	slots  []uint64 // 2 words a slot: prefix; len<<56 | hash>>40<<32 | uint32(id)+2 (0: empty)
	n      int      // slots in use
	recent *[2 * recentSlots]uint64
}

// recentBits are the bits of a term's hash that place it in recent.
const recentBits = 12

const recentSlots = 1 << recentBits

// termKey is what a lookup compares first: a term's first 8 bytes (zero past its end), and
// its length with the upper 24 bits of its hash (the word's bits 32–63 in a slot); h places
// it.
type termKey struct {
	prefix, tag, h uint64
}

// maxShortTerm is the longest term a slot holds whole. A term with no id (a stopword) must be
// no longer: a longer term is checked against the string of its id.
const maxShortTerm = 8

func newTermTable() termTable {
	return termTable{slots: make([]uint64, 2*4*initialTerms), recent: new([2 * recentSlots]uint64)}
}

// hashTerm reads a term's key: its prefix, and a hash of its bytes (8 at a time, mixed).
func hashTerm(t []byte) termKey {
	n := len(t)
	var k termKey
	k.prefix = loadPart(t)
	h := (k.prefix ^ uint64(n)<<58) * 0x9e3779b97f4a7c15
	for i := 8; i < n; i += 8 {
		h = bits.RotateLeft64(h, 29) ^ loadPart(t[i:])
		h *= 0xbf58476d1ce4e5b9
	}
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	h ^= h >> 29
	k.h = h
	k.tag = uint64(n)<<24 | h>>40
	return k
}

// loadPart reads up to 8 bytes of t as a little-endian word, zero past t's end.
func loadPart(t []byte) uint64 {
	if len(t) >= 8 {
		return binary.LittleEndian.Uint64(t)
	}
	if cap(t) >= 8 { // (eachTerm's terms: a word read and its bytes past the term masked off)
		return binary.LittleEndian.Uint64(t[:8]) & (1<<(8*len(t)) - 1)
	}
	var w uint64
	for i := len(t) - 1; i >= 0; i-- {
		w = w<<8 | uint64(t[i])
	}
	return w
}

// get finds term (whose key is k; strs are the terms by id); when it is absent, slot is
// where put inserts it.
func (t *termTable) get(term []byte, k termKey, strs []string) (val int32, slot int, ok bool) {
	r := k.h >> (64 - recentBits)
	if id, ok := k.in(t.recent[2*r:2*r+2:2*r+2], term, strs); ok {
		return id, 0, true
	}
	mask := len(t.slots)/2 - 1
	for i := int(k.h) & mask; ; i = (i + 1) & mask {
		s := t.slots[2*i : 2*i+2 : 2*i+2]
		if s[1] == 0 {
			return 0, i, false
		}
		if id, ok := k.in(s, term, strs); ok {
			t.recent[2*r], t.recent[2*r+1] = s[0], s[1]
			return id, i, true
		}
	}
}

// in reports whether slot s holds term (whose key is k), and its id.
func (k termKey) in(s []uint64, term []byte, strs []string) (int32, bool) {
	if s[0] != k.prefix || s[1]>>32 != k.tag || s[1] == 0 {
		return 0, false
	}
	id := int32(uint32(s[1]) - 2)
	return id, len(term) <= maxShortTerm || strs[id] == string(term)
}

// put inserts a term get did not find, at the slot it gave, with its id (-1: none, for a
// term of at most maxShortTerm bytes); strs are the terms by id, val's among them. The table
// doubles when three quarters of its slots are used: a lookup is a miss of the caches more
// often than a probe too many (a table grown at half full made a build 4% slower).
func (t *termTable) put(slot int, k termKey, val int32, strs []string) {
	t.slots[2*slot] = k.prefix
	t.slots[2*slot+1] = k.tag<<32 | uint64(uint32(val)+2)
	t.n++
	if 4*t.n > 3*(len(t.slots)/2) {
		t.grow(strs)
	}
}

// grow doubles the slots and places every term again.
func (t *termTable) grow(strs []string) {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := len(t.slots)/2 - 1
	var short [8]byte
	for j := 0; j < len(old); j += 2 {
		if old[j+1] == 0 {
			continue
		}
		var term []byte
		if n := int(old[j+1] >> 56); n <= maxShortTerm {
			binary.LittleEndian.PutUint64(short[:], old[j])
			term = short[:n]
		} else {
			term = []byte(strs[int32(uint32(old[j+1])-2)])
		}
		i := int(hashTerm(term).h) & mask
		for t.slots[2*i+1] != 0 {
			i = (i + 1) & mask
		}
		t.slots[2*i], t.slots[2*i+1] = old[j], old[j+1]
	}
}

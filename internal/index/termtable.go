package index

// termTable maps a segment's terms to their ids: open addressing with linear probing over a
// hash computed from the term's bytes, which the builder looks up once for every word of the
// text (a Go map of strings spent most of a build hashing and probing). A slot holds the upper
// half of its term's hash beside the term's index, so that a probe reads one slot, and the
// term's entry and bytes only when the hashes agree: a lookup touches two places in memory
// rather than four (slot, hash, key, bytes), which is what a table larger than the caches
// pays for.
type termTable struct {
	slots []uint64 // hash>>32<<32 | index+1 into ents; 0: empty
	ents  []termEntry
}

// termEntry is a term of the table and its id.
type termEntry struct {
	key string
	val int32
}

func newTermTable() termTable {
	return termTable{slots: make([]uint64, 4*initialTerms), ents: make([]termEntry, 0, initialTerms)}
}

// hashTerm is FNV-1a of the term's bytes, with a final mix.
func hashTerm(t []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range t {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>32
}

// get finds term; when it is absent, slot is where put inserts it.
func (t *termTable) get(term []byte, h uint64) (val int32, slot int, ok bool) {
	mask := len(t.slots) - 1
	tag := h &^ (1<<32 - 1)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if s&^(1<<32-1) == tag {
			if e := &t.ents[uint32(s)-1]; e.key == string(term) {
				return e.val, i, true
			}
		}
	}
}

// put inserts a term get did not find, at the slot it gave.
func (t *termTable) put(slot int, term string, h uint64, val int32) {
	t.ents = append(t.ents, termEntry{key: term, val: val})
	t.slots[slot] = h&^(1<<32-1) | uint64(len(t.ents))
	if 2*len(t.ents) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the slots and places every key again.
func (t *termTable) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	mask := len(t.slots) - 1
	for k := range t.ents {
		h := hashTerm([]byte(t.ents[k].key))
		i := int(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h&^(1<<32-1) | uint64(k+1)
	}
}

package index

// termTable maps a segment's terms to their ids: open addressing with linear probing over a
// hash computed from the term's bytes, which the builder looks up once for every word of the
// text (a Go map of strings spent most of a build hashing and probing).
type termTable struct {
	slots []int32 // index+1 into keys; 0: empty
	keys  []string
	hash  []uint64
	vals  []int32
}

func newTermTable() termTable {
	return termTable{slots: make([]int32, 4*initialTerms), keys: make([]string, 0, initialTerms),
		hash: make([]uint64, 0, initialTerms), vals: make([]int32, 0, initialTerms)}
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
	for i := int(h) & mask; ; i = (i + 1) & mask {
		k := t.slots[i]
		if k == 0 {
			return 0, i, false
		}
		if t.hash[k-1] == h && t.keys[k-1] == string(term) {
			return t.vals[k-1], i, true
		}
	}
}

// put inserts a term get did not find, at the slot it gave.
func (t *termTable) put(slot int, term string, h uint64, val int32) {
	t.keys = append(t.keys, term)
	t.hash = append(t.hash, h)
	t.vals = append(t.vals, val)
	t.slots[slot] = int32(len(t.keys))
	if 2*len(t.keys) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the slots and places every key again.
func (t *termTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := len(t.slots) - 1
	for k, h := range t.hash {
		i := int(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(k + 1)
	}
}

package claude

import "slices"

// The context Claude Code resumes: the parentUuid chain from the newest message back to a
// compact boundary or a root, the blocks of its responses off the chain, and a
// preserved-messages compaction's relinked records.

// context returns the indexes of the records Claude Code resumes, in file order: the parentUuid
// chain from the newest message record back to a compact_boundary or a root, plus the blocks of
// the chain's responses that are not on it, and their tool results. Claude Code writes a
// response with parallel tool calls as one record per block, each block's result as a child of
// that block's record, and later records continue from only one of those: the other blocks and
// results hang off the chain, and Claude Code puts them back (checked with Claude Code 2.1.330
// through resume.sh: the 40 calls and results of ccl-v2.1.114-worktrees-attachments.jsonl).
func (c *Reader) context() []int32 {
	links := parentLinks{c: c, rl: c.relink()}
	on := make([]bool, c.recs.len()) // the records on the chain
	chain := c.chain(links, on)
	if len(chain) == 0 {
		return nil
	}
	recovered := c.offChainBlocks(chain, on, links)
	// In file order, which is the chain's order but for relinked records (they come first,
	// in their relinked order, after the summary they hang off).
	if links.rl != nil {
		return mergeByIndex(chain, recovered)
	}
	out := append(chain, recovered...)
	slices.Sort(out)
	return out
}

// parentLinks are the parent links the context follows: the records' parentUuid, or, after a
// preserved-messages compaction, those relink made (rl), which also drop records.
type parentLinks struct {
	c  *Reader
	rl *relinked // nil: the records' own links
}

// leaf is the record the context's walk starts from.
func (k parentLinks) leaf() int32 {
	if k.rl != nil {
		return k.rl.leaf
	}
	return k.c.leaf
}

// parent is the hash of record i's parent uuid (0: none).
func (k parentLinks) parent(i int32) uint64 {
	if k.rl != nil {
		if q, ok := k.rl.parent[i]; ok {
			return q
		}
	}
	return k.c.recs.at(i).parent
}

// dropped tells a record a preserved-messages compaction dropped: one before its boundary that
// it does not list.
func (k parentLinks) dropped(i int32) bool {
	if k.rl == nil {
		return false
	}
	_, kept := k.rl.parent[i]
	return i < k.rl.boundary && !kept
}

// chain walks the parent links back from the leaf and returns the records on the way, oldest
// first, marking them in on. The walk ends at a compact_boundary, a root, a parent the file
// does not hold (a resumed session's) or a dropped record.
func (c *Reader) chain(links parentLinks, on []bool) []int32 {
	// Sized for a session that is one long chain (the common case, and the one where growing
	// it would cost most): finish is the part of a scan that runs on one core.
	chain := make([]int32, 0, c.recs.len())
	for i := links.leaf(); i >= 0 && !links.dropped(i); {
		if on[i] {
			break // a parent cycle in a damaged file: stop rather than spin
		}
		on[i] = true
		chain = append(chain, i)
		if c.recs.at(i).boundary || links.parent(i) == 0 {
			break
		}
		p, ok := c.lookup(links.parent(i), i)
		if !ok {
			break // parent in another file (resumed session) or lost
		}
		i = p
	}
	slices.Reverse(chain)
	return chain
}

// offChainBlocks returns the message records off the chain that Claude Code puts back, in file
// order: the other blocks of the chain's responses, and their tool results. Only records after
// the chain's first one count (a compaction's kept copies may repeat message ids of the history
// before its boundary), never records a preserved-messages compaction dropped.
func (c *Reader) offChainBlocks(chain []int32, on []bool, links parentLinks) []int32 {
	first := slices.Min(chain)
	responses := c.chainResponses(chain, on, first, links)
	if len(responses) == 0 {
		return nil
	}
	var recovered []int32
	for i := first + 1; i < c.recs.len(); i++ {
		r := c.recs.at(i)
		if !on[i] && r.message && !links.dropped(i) && c.ofResponse(r, i, first, responses) {
			recovered = append(recovered, i)
		}
	}
	return recovered
}

// chainResponses is the set of the chain's responses (message.id hashes), made only when some
// message record after the chain's first is off it: most sessions have none, and finish runs on
// one core. nil: no record to look at.
func (c *Reader) chainResponses(chain []int32, on []bool, first int32, links parentLinks) map[uint64]bool {
	for i := first + 1; i < c.recs.len(); i++ {
		if !on[i] && c.recs.at(i).message && !links.dropped(i) {
			responses := map[uint64]bool{}
			for _, k := range chain {
				if id := c.recs.at(k).msgID; id != 0 {
					responses[id] = true
				}
			}
			return responses
		}
	}
	return nil
}

// ofResponse tells whether record r (index i) is a block of one of responses, or the tool
// results of a record (after first) that is one.
func (c *Reader) ofResponse(r *record, i, first int32, responses map[uint64]bool) bool {
	switch {
	case r.msgID != 0:
		return responses[r.msgID]
	case r.results && r.parent != 0:
		p, ok := c.lookup(r.parent, i)
		return ok && p >= first && c.recs.at(p).msgID != 0 && responses[c.recs.at(p).msgID]
	}
	return false
}

// mergeByIndex inserts the recovered records into the chain's last run in file order.
func mergeByIndex(chain, recovered []int32) []int32 {
	if len(recovered) == 0 {
		return chain
	}
	// The chain's suffix that is in file order (records written after the relinked ones).
	k := len(chain) - 1
	for k > 0 && chain[k-1] < chain[k] {
		k--
	}
	tail := append(append([]int32{}, chain[k:]...), recovered...)
	slices.Sort(tail)
	return append(chain[:k:k], tail...)
}

// relinked is the state of a preserved-messages compaction applied to the records.
type relinked struct {
	boundary int32
	parent   map[int32]uint64 // records whose parent changes
	leaf     int32
}

// relink applies the last boundary's preservedMessages, when the last boundary has them, as
// Claude Code does on resume (checked with Claude Code 2.1.330): the listed records are chained
// one after the other under the anchor, a record that hung off the anchor now hangs off the
// last listed one, and the other records before the boundary are dropped. The leaf is then the
// newest message record nothing continues from. A list naming a record not in the file leaves
// the records as they are (Claude Code does the same).
func (c *Reader) relink() *relinked {
	p := c.preserved
	if p == nil {
		return nil
	}
	idx := make([]int32, len(p.uuids))
	for k, u := range p.uuids {
		i, ok := c.index[u]
		if !ok {
			return nil
		}
		idx[k] = i
	}
	r := &relinked{boundary: p.boundary, parent: make(map[int32]uint64, len(idx)+1)}
	for k, i := range idx {
		if k == 0 {
			r.parent[i] = p.anchor
		} else {
			r.parent[i] = p.uuids[k-1]
		}
	}
	last := p.uuids[len(p.uuids)-1]
	for i := p.boundary; i < c.recs.len(); i++ {
		if c.recs.at(i).parent == p.anchor && i != idx[0] {
			r.parent[i] = last
		}
	}
	r.leaf = c.newestLeaf(func(i int32) (uint64, bool) {
		if q, ok := r.parent[i]; ok {
			return q, true
		}
		return c.recs.at(i).parent, i >= p.boundary // a record before the boundary not listed is dropped
	}, func(i int32) bool {
		_, kept := r.parent[i]
		return i >= p.boundary || kept
	})
	return r
}

// newestLeaf is the newest message record that no later message continues from, among those
// live says are in the conversation: the records after it on its branch, if any, are
// attachments or system records (Claude Code 2.1.330 chains a compaction's hook_success and
// hook_additional_context attachments after the summary and the messages that follow it, and
// resumes from the newest of them). parent gives a live record's parent (ok false: dropped).
func (c *Reader) newestLeaf(parent func(int32) (uint64, bool), live func(int32) bool) int32 {
	n := c.recs.len()
	continued := make([]bool, n) // a message record descends from it
	for i := range n {
		if !c.recs.at(i).message || !live(i) {
			continue
		}
		for j, steps := i, int32(0); steps < n; steps++ {
			q, ok := parent(j)
			if !ok || q == 0 {
				break
			}
			k, found := c.index[q]
			if !found || continued[k] {
				break
			}
			continued[k] = true
			j = k
		}
	}
	for i := n - 1; i >= 0; i-- {
		if c.recs.at(i).message && live(i) && !continued[i] {
			return i
		}
	}
	return -1
}

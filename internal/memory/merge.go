package memory

import "slices"

// Merge combines the entries read back from a memory file's section with the memory of the
// sessions read now (inputs: their paths). An entry of both counts what the sessions read now
// say, plus the sources of the old entry in other files: exactly when the old entry listed all
// of its sources, at least as much as either otherwise. An old entry the sessions read now do
// not hold is kept when one of its sources is in a session not read now (that session may be
// gone); one whose sources are all in the sessions read now is not (those sessions no longer say
// it in those words: an entry a model phrased, or one an earlier version extracted). Merging the
// same sessions twice gives the same entries.
func Merge(old []Entry, fresh *Memory, inputs []string, o Options) []Entry {
	read := map[string]bool{}
	for _, p := range inputs {
		read[sourceName(p)] = true
	}
	at := map[string]int{}
	var out []Entry
	for _, e := range fresh.Entries {
		e.key = entryKey(e.Kind, e.Text)
		at[e.key] = len(out)
		out = append(out, e)
	}
	for _, e := range old {
		e.key = entryKey(e.Kind, e.Text)
		i, ok := at[e.key]
		if !ok {
			if !allRead(e.Sources, read) {
				at[e.key] = len(out)
				out = append(out, e)
			}
			continue
		}
		out[i] = mergeEntry(e, out[i], read)
	}
	return finish(out, o)
}

// mergeEntry is fresh, the entry of the sessions read now, with what old knew of other files.
func mergeEntry(old, fresh Entry, read map[string]bool) Entry {
	var other []Source
	names := map[string]bool{}
	allNames := map[string]bool{}
	for _, s := range old.Sources {
		allNames[sourceName(s.Path)] = true
		if !read[sourceName(s.Path)] {
			other = append(other, s)
			names[sourceName(s.Path)] = true
		}
	}
	e := fresh
	e.Sources = addSources(slices.Clone(fresh.Sources), other...)
	if old.Count == len(old.Sources) {
		e.Count = fresh.Count + len(other)
	} else {
		e.Count = max(old.Count, fresh.Count+len(other))
	}
	if old.Sessions == len(allNames) {
		e.Sessions = fresh.Sessions + len(names)
	} else {
		e.Sessions = max(old.Sessions, fresh.Sessions+len(names))
	}
	if old.Last.After(e.Last) {
		e.Last = old.Last
	}
	return e
}

// allRead reports whether every source is in a session read now.
func allRead(srcs []Source, read map[string]bool) bool {
	for _, s := range srcs {
		if !read[sourceName(s.Path)] {
			return false
		}
	}
	return true
}

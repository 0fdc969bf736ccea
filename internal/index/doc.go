// Package index owns ctxc's index of an archive of sessions: what `ctxc index` builds and
// updates, `ctxc grep --index` asks which files can hold a pattern, and `ctxc search` ranks
// messages with (BM25). It is a folder of immutable segment files and one manifest that names
// them; an update writes new segments for what changed (a grown session's appended lines only)
// and then replaces the manifest atomically, so a run killed at any moment leaves the index as
// it was before the run or as it is after it.
//
// A segment holds, for the files and byte ranges it covers: the trigrams of their raw bytes
// (lower-cased) with the files that hold each, which is how grep's candidates are chosen, and
// the terms of their messages with postings (message, term frequency), which is how search
// ranks. Grep's hits always come from reading the candidate files, so they are a scan's hits.
package index

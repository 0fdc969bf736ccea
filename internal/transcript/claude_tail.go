package transcript

import (
	"io"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// boundaryProbe is the byte string every compact_boundary line contains; lines are confirmed by
// parsing (boundaryAt).
var boundaryProbe = []byte(`"compact_boundary"`)

// loadClaudeTail is the load of a Claude Code session from its newest main-chain
// compact_boundary (Options.FromNewestCompaction): Claude Code's walk back from the newest
// message ends at that boundary, so the records before it are not read at all, but for those it
// preserves (compactMetadata.preservedMessages: the read starts at the oldest of them). ok is false when
// the context may reach before the boundary, and the caller then loads the whole file:
//   - no boundary, or one before from (the load passes the middle of the file: reading from an
//     earlier boundary saves little, and the whole file is read on every core);
//   - a boundary with compactMetadata.preservedMessages (records before it that it keeps, read
//     with it) of which one is not found after from (preservedStart);
//   - a context that does not start with the boundary's summary (the newest message is on a
//     branch from before the boundary), or a read that fails (the whole load says why).
//
// The Stats of the result describe the part read; line numbers and offsets are the file's.
func loadClaudeTail(f *io.SectionReader, size, from int64, path string, opts Options) (*Result, []Message, bool, error) {
	off, line, err := findLastLine(f, size, 1<<20, boundaryProbe, boundaryAt)
	if err != nil || off < 0 || off < from {
		return nil, nil, false, err
	}
	boundary := off
	if pm := gjson.GetBytes(line, "compactMetadata.preservedMessages"); pm.IsObject() {
		if off, err = preservedStart(f, from, off, pm); err != nil || off < 0 {
			return nil, nil, false, err
		}
	}
	lines := 0
	if !opts.Unnumbered {
		if lines, err = countLines(f, off); err != nil {
			return nil, nil, false, err
		}
	}
	lr := jsonl.NewLineReader(io.NewSectionReader(f, off, size-off))
	lr.SetStart(off, lines)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	opts.keep = FormatClaude
	res, err := scanFrom(lr, path, opts, FormatClaude)
	if err != nil {
		return nil, nil, false, nil
	}
	msgs, err := res.Messages(f)
	if err != nil || len(msgs) == 0 || !msgs[0].Summary || !newestRecordAt(res.Stats, boundary) {
		return nil, nil, false, nil
	}
	return res, msgs, true, nil
}

// newestRecordAt tells whether the newest compaction record of st starts at off.
func newestRecordAt(st *Stats, off int64) bool {
	n := len(st.Records)
	return n > 0 && st.Records[n-1].Start == off
}

// preservedStart is where the read of a boundary at off with compactMetadata.preservedMessages
// pm starts: the newest line before it, not before from, that holds the last of its preserved
// records still missing, walking back (each record is the newest of its uuid, as the relink
// takes it). -1: a record is not found there.
func preservedStart(f io.ReaderAt, from, off int64, pm gjson.Result) (int64, error) {
	want := map[string]bool{}
	for _, u := range pm.Get("uuids").Array() {
		want[u.String()] = true
	}
	if len(want) == 0 {
		return off, nil
	}
	found := func(r io.ReaderAt, start, end int64) (int64, []byte, error) {
		ln := make([]byte, end-start)
		if _, err := r.ReadAt(ln, start); err != nil && err != io.EOF {
			return -1, nil, err
		}
		delete(want, gjson.GetBytes(conv.TrimLine(ln), "uuid").String())
		if len(want) > 0 {
			return -1, nil, nil
		}
		return start, nil, nil
	}
	start, _, err := findLastLine(io.NewSectionReader(f, from, off-from), off-from, 1<<20, []byte(`"uuid"`), found)
	if err != nil || start < 0 {
		return -1, err
	}
	return from + start, nil
}

// boundaryAt reads the line [start, end) and returns it when it is a main-chain
// compact_boundary record (else -1).
func boundaryAt(r io.ReaderAt, start, end int64) (int64, []byte, error) {
	l, err := jsonLineAt(r, start, end)
	if err != nil || l == nil {
		return -1, nil, err
	}
	doc := gjson.ParseBytes(l)
	if doc.Get("type").Str != "system" || doc.Get("subtype").Str != "compact_boundary" || doc.Get("isSidechain").Bool() {
		return -1, nil, nil
	}
	return start, l, nil
}

package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// searchKeys is what a search finds, as comparable text.
func searchKeys(t *testing.T, dir string, queries ...string) []string {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for _, q := range queries {
		// Every result: those of equal scores come in the order of the segments.
		for _, res := range r.Search(Query{Text: q, Limit: 100000}) {
			out = append(out, fmt.Sprintf("%s %s:%d@%d %.4f", q, filepath.Base(res.Path), res.Line, res.offset, res.Score))
		}
	}
	sort.Strings(out)
	return out
}

var mergeQueries = []string{"quokka", "zebra parser", "retry cache kernel", "deploy"}

// segmentNames are the index's segment files.
func segmentNames(t *testing.T, dir string) []string {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range m.Segments {
		out = append(out, s.Name)
	}
	return out
}

// TestManyUpdatesNeverRebuild: an archive updated a hundred times (each time a few sessions
// grow by a line: a new segment each time) is never rebuilt; every update reads only the
// appended bytes, merges keep the segments few, and grep and search find what they find in an
// index built at once. (The index rebuilt itself whole once it held 62 segments: past 4 GiB of
// sessions in segments of 64 MiB, every update.)
func TestManyUpdatesNeverRebuild(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 12)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	most := 0
	for round := 0; round < 100; round++ {
		var added int64
		for k := 0; k < 3; k++ {
			line := fmt.Sprintf(`{"role":"user","content":"round %d wombat%d deploy quokka"}`+"\n", round, round)
			appendRaw(t, files[(2*(round*3+k)+1)%len(files)], line) // (sessions that end with a newline)
			added += int64(len(line))
		}
		st, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		if st.Rebuilt || st.Indexed != 0 || st.Appended != 3 || st.Bytes != added {
			t.Fatalf("round %d: %+v, want 3 files grown by %d bytes", round, st, added)
		}
		most = max(most, len(segmentNames(t, dir)))
	}
	// Below 1 MiB every segment is of the lowest tier: at most mergeFactor-1 of them stay, and
	// the merged ones of the tier above.
	if limit := 2 * mergeFactor; most > limit {
		t.Errorf("%d segments at most, want at most %d", most, limit)
	}
	before := segmentNames(t, dir)
	st, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Unchanged != len(files) || st.Merged != 0 || st.Bytes != 0 || !reflect.DeepEqual(segmentNames(t, dir), before) {
		t.Errorf("nothing changed: %+v, segments %v then %v", st, before, segmentNames(t, dir))
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := Update(fresh, files, []string{src}, UpdateOptions{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	agree(t, dir, files, "after 100 updates")
	queries := append(mergeQueries, "wombat7", "wombat99")
	if got, want := searchKeys(t, dir, queries...), searchKeys(t, fresh, queries...); !reflect.DeepEqual(got, want) {
		t.Errorf("search after merges:\n%v\nan index built at once:\n%v", got, want)
	}
	// The merged segments' files are gone; only the manifest and its segments are left.
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(before)+1 {
		t.Errorf("%d files in the index folder, want %d segments and the manifest", len(entries), len(before))
	}
}

// lowerLimits makes segments of a few KiB, and tiers of them, for a test.
func lowerLimits(t *testing.T, text int64) {
	oldText, oldSmall, oldMax := segmentText, smallTier, maxMergeText
	segmentText, smallTier, maxMergeText = text, text/4, text*64
	t.Cleanup(func() { segmentText, smallTier, maxMergeText = oldText, oldSmall, oldMax })
}

// TestSegmentsSpillAndMerge: with segments of 2 KiB, a session larger than that is split
// across segments at line ends, the tiers fill and merge (dropping the documents of a session
// rewritten), and grep and search find exactly what they find in an index of one segment.
func TestSegmentsSpillAndMerge(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 24)
	whole := filepath.Join(t.TempDir(), "whole")
	if _, err := Update(whole, files, []string{src}, UpdateOptions{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	lowerLimits(t, 2<<10)
	dir := filepath.Join(t.TempDir(), "index")
	st, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Merged == 0 {
		t.Errorf("no merge: %+v", st)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range m.Segments {
		if s.Text > maxMergeText+segmentText {
			t.Errorf("%s covers %d bytes, more than a merge makes", s.Name, s.Text)
		}
	}
	agree(t, dir, files, "spilled and merged")
	if got, want := searchKeys(t, dir, mergeQueries...), searchKeys(t, whole, mergeQueries...); !reflect.DeepEqual(got, want) {
		t.Errorf("search of spilled segments:\n%v\none segment:\n%v", got, want)
	}
	// A rewritten session: its old documents are dead, and a merge drops them.
	os.WriteFile(files[1], []byte(`{"role":"user","content":"rewritten wholly, no quokka here"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(src, "s0001.jsonl"), []byte(`{"role":"user","content":"rewritten wholly, no kangaroo"}`+"\n"), 0o644)
	for round := 0; round < 3*mergeFactor; round++ {
		appendRaw(t, files[2], fmt.Sprintf(`{"role":"user","content":"more %d quokka"}`+"\n", round))
		if _, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Update(whole, files, []string{src}, UpdateOptions{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	agree(t, dir, files, "after rewrites and merges")
	got, want := searchKeys(t, dir, mergeQueries...), searchKeys(t, whole, mergeQueries...)
	if len(got) != len(want) {
		t.Errorf("search after merges: %d results, want %d", len(got), len(want))
	}
	m, _ = readManifest(dir)
	var docs int
	for _, s := range m.Segments {
		docs += s.Docs
	}
	mw, _ := readManifest(whole)
	var wholeDocs int
	for _, s := range mw.Segments {
		wholeDocs += s.Docs
	}
	if docs >= wholeDocs+3*mergeFactor {
		t.Errorf("%d documents in the merged segments, %d in those never merged: the dead ones were kept", docs, wholeDocs)
	}
}

// TestMergeCopiesListsAsRenumbered: a merge copies the lists of an input whose documents and
// blocks all live, writing only their first delta anew; the merged segment is byte for byte
// the one renumbering every item writes, whether every input lives or one file's documents
// are dead.
func TestMergeCopiesListsAsRenumbered(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 24)
	lowerLimits(t, 2<<10)
	defer func(f int) { mergeFactor = f }(mergeFactor)
	mergeFactor = 1 << 20 // (no merge during the update)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range m.Segments {
		names = append(names, s.Name)
	}
	if len(names) < 3 {
		t.Fatalf("%d segments, want several", len(names))
	}
	tests := []struct {
		name string
		live func(uint32) bool
	}{
		{"every file lives", func(uint32) bool { return true }},
		{"a file is dead", func(id uint32) bool { return id != 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			merge := func(copying bool, name string) []byte {
				copyLiveLists = copying
				defer func() { copyLiveLists = true }()
				if _, err := mergeFiles(dir, names, name, tt.live); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				os.Remove(filepath.Join(dir, name))
				return b
			}
			copied, renumbered := merge(true, "copied.idx"), merge(false, "renumbered.idx")
			if !bytes.Equal(copied, renumbered) {
				t.Errorf("the merge that copies lists wrote %d bytes, unlike the %d of the merge that renumbers", len(copied), len(renumbered))
			}
		})
	}
}

// TestNextMergeBounds: a merge takes segments of one tier, the smallest, never more than
// mergeFactor nor more than maxMergeText of text, and none of the top tier.
func TestNextMergeBounds(t *testing.T) {
	const mib = 1 << 20
	segs := func(texts ...int64) []SegmentInfo {
		var out []SegmentInfo
		for i, x := range texts {
			out = append(out, SegmentInfo{Name: fmt.Sprint(i), Text: x})
		}
		return out
	}
	for _, c := range []struct {
		texts []int64
		want  []int
	}{
		{[]int64{10, 10, 10, 10, 10, 10, 10}, nil},
		{[]int64{10, 10, 10, 10, 10, 10, 10, 10}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{[]int64{5 * mib, 10, 10, 10, 10, 10, 10, 10, 10, 10}, []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{[]int64{64 * mib, 64 * mib, 64 * mib, 64 * mib, 64 * mib, 64 * mib, 64 * mib, 64 * mib}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{[]int64{600 * mib, 600 * mib, 600 * mib, 600 * mib, 600 * mib, 600 * mib, 600 * mib, 600 * mib, 600 * mib}, nil},
		{[]int64{400 * mib, 300 * mib, 400 * mib, 400 * mib, 400 * mib, 200 * mib, 400 * mib, 400 * mib}, []int{0, 1, 5}},
	} {
		got := nextMerge(segs(c.texts...))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: merge %v, want %v", c.texts, got, c.want)
		}
	}
}

// TestNextMergesShareNoSegment: the merges that run at once take no segment twice, and
// together cover at most mergeBudget of text (the first alone may cover more).
func TestNextMergesShareNoSegment(t *testing.T) {
	const mib = 1 << 20
	seg := func(n int, text int64) []SegmentInfo {
		var out []SegmentInfo
		for range n {
			out = append(out, SegmentInfo{Name: fmt.Sprint(len(out)), Text: text})
		}
		return out
	}
	for _, c := range []struct {
		name  string
		segs  []SegmentInfo
		cores int
		want  [][]int
	}{
		{"one tier, 16 segments", seg(16, 64*mib), 2, [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
		{"one core", seg(16, 64*mib), 1, [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{"past the budget", seg(16, 100*mib), 4, [][]int{{0, 1, 2, 3, 4, 5, 6, 7}}},
		{"two tiers", append(seg(8, 10), seg(8, 64*mib)...), 2, [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}},
		{"none full", seg(7, 64*mib), 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			segs := c.segs
			for i := range segs {
				segs[i].Name = fmt.Sprint(i)
			}
			got := nextMerges(segs, c.cores)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("merges %v, want %v", got, c.want)
			}
		})
	}
}

// TestIndexPast4GiB: a session of 5 GiB (sparse: its first 5 GiB are a hole, already indexed as
// 5 billion lines) grows; the update reads only the appended lines, and grep and search place
// them past 4 GiB and past line 2^32, through merges too.
func TestIndexPast4GiB(t *testing.T) {
	src := t.TempDir()
	path := filepath.Join(src, "big.jsonl")
	const hole = 5 << 30
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(hole); err != nil {
		t.Skip("no sparse files here:", err)
	}
	var st syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &st) != nil || st.Blocks*512 > 1<<20 {
		f.Close()
		t.Skip("no sparse files here")
	}
	f.Close()
	tail, err := tailHash(path, hole)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	os.MkdirAll(dir, 0o755)
	m := newManifest()
	const lines = 5_000_000_000
	m.Files[path] = &FileEntry{ID: 1, Size: hole, MTime: 1, Done: hole, Lines: lines, Tail: tail, Format: "openai"}
	m.NextFile = 2
	if err := m.write(dir, m.encode()); err != nil {
		t.Fatal(err)
	}
	at := int64(hole)
	for round := 0; round < 2*mergeFactor; round++ {
		line := fmt.Sprintf(`{"role":"user","content":"the wombat%d past four gibibytes"}`+"\n", round)
		appendRaw(t, path, line)
		us, err := Update(dir, []string{path}, []string{src}, UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if us.Rebuilt || us.Appended != 1 || us.Bytes != int64(len(line)) {
			t.Fatalf("round %d: %+v, want one append of %d bytes", round, us, len(line))
		}
		at += int64(len(line))
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := r.Search(Query{Text: "wombat3", Limit: 5})
	if len(res) != 1 || res[0].Line != lines+4 || res[0].offset <= 4<<30 {
		t.Fatalf("search past 4 GiB: %+v", res)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	got := partsOf(t, dir, []string{path}, "wombat11")[path]
	if len(got) != 1 || got[0].From <= 4<<30 || got[0].To > at || got[0].Line <= 1<<32 {
		t.Errorf("grep's blocks past 4 GiB: %+v", got)
	}
	if n := len(segmentNames(t, dir)); n >= 2*mergeFactor {
		t.Errorf("%d segments after %d updates: none merged", n, 2*mergeFactor)
	}
	r.Close()
	us, err := Update(dir, []string{path}, []string{src}, UpdateOptions{})
	if err != nil || us.Unchanged != 1 || us.Rebuilt || us.Bytes != 0 {
		t.Errorf("nothing changed: %+v, %v", us, err)
	}
}

// TestOlderLayoutSaysWhy: an index of layout 5 (line numbers in 32 bits, rebuilt whole past 64
// segments) is named as an older ctxc's by a query, with why it is rebuilt, and the next update
// rebuilds it once, saying so.
func TestOlderLayoutSaysWhy(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 4)
	dir := filepath.Join(t.TempDir(), "index")
	os.MkdirAll(dir, 0o755)
	m := newManifest()
	m.Schema = 5
	m.Segments = []SegmentInfo{{Name: "seg-000000.idx", Docs: 1, Text: 10}}
	if err := m.write(dir, m.encode()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "seg-000000.idx"), []byte("CTXCSEG4 a segment of layout 5"), 0o644)
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "layout 5 of an older ctxc") || !strings.Contains(err.Error(), "past 4 GiB") {
		t.Fatalf("layout 5: %v", err)
	}
	var notices []string
	st, err := Update(dir, files, []string{src}, UpdateOptions{Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Rebuilt || st.Indexed != len(files) || len(notices) != 1 || !strings.Contains(notices[0], "rebuilding") {
		t.Errorf("rebuild: %+v, notices %q", st, notices)
	}
	if _, err := os.Stat(filepath.Join(dir, "seg-000000.idx")); err == nil {
		if names := segmentNames(t, dir); len(names) == 0 || names[0] != "seg-000000.idx" {
			t.Errorf("the older segment is still there")
		}
	}
	notices = nil
	st, err = Update(dir, files, []string{src}, UpdateOptions{Notice: func(s string) { notices = append(notices, s) }})
	if err != nil || st.Rebuilt || len(notices) != 0 || st.Unchanged != len(files) {
		t.Errorf("the update after the rebuild: %+v, %v, notices %q", st, err, notices)
	}
}

// TestSearchDuringMerges: searches run while updates merge segments and remove the merged
// ones; none fails, and each finds what the index held when it opened it.
func TestSearchDuringMerges(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 8)
	lowerLimits(t, 2<<10)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	failed := make(chan error, 1)
	go func() {
		defer close(failed)
		for {
			select {
			case <-stop:
				return
			default:
			}
			r, err := Open(dir)
			if err != nil {
				failed <- err
				return
			}
			if res := r.Search(Query{Text: "quokka", Limit: 5}); len(res) == 0 {
				failed <- fmt.Errorf("no result for quokka")
			}
			r.Close()
		}
	}()
	merged := 0
	for round := 0; round < 4*mergeFactor; round++ {
		appendRaw(t, files[1+2*(round%4)], fmt.Sprintf(`{"role":"user","content":"round %d"}`+"\n", round))
		st, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2})
		if err != nil {
			t.Fatal(err)
		}
		merged += st.Merged
	}
	close(stop)
	if err := <-failed; err != nil {
		t.Errorf("a search during the merges: %v", err)
	}
	if merged == 0 {
		t.Errorf("no merge happened")
	}
}

package index

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
)

// UpdateOptions are the inputs of an update.
type UpdateOptions struct {
	Format  transcript.Format // forced format; FormatUnknown detects each file's
	Jobs    int               // files read at once (default: the cores)
	Warn    func(error)       // a file that could not be indexed (it stays as it was)
	Done    func(bytes int64) // progress: bytes of a file read
	Planned func(bytes int64) // the bytes the update will read, said once before it starts
	// Notice says what the user should know of the update (an index of an older layout
	// rebuilt once, and why).
	Notice func(string)
	// Dirs are the listings of the folders walked to find the files (Walker.Seen): they
	// replace those the index kept under the roots.
	Dirs map[string]*Listing
}

// UpdateStats say what an update did.
type UpdateStats struct {
	Files, Indexed, Appended, Unchanged, Removed, Failed int
	Messages                                             int
	Bytes                                                int64 // indexed: decompressed bytes of complete lines
	Rebuilt                                              bool  // an index of another layout read again whole
	Merged                                               int   // segments merged into fewer
}

// segmentText is the raw text after which a segment being built is written and a new one
// started, within a file too (at a line's end): it bounds the memory of a build and, with the
// longest line (jsonl.DefaultMaxLine), the text of a segment (segment.go). A variable for
// tests.
var segmentText int64 = 64 << 20

const (
	// tailBytes is the part of a file before its indexed end that must be unchanged for a
	// grown file to be read as an append.
	tailBytes = 4096
)

// job is one file to read: all of it (from 0) or what was appended (from its entry's Done).
type job struct {
	path  string
	info  os.FileInfo
	entry *FileEntry // the entry to fill: a copy of the old one when appending
	from  int64
}

// planned is about the bytes of the file the job reads, for the progress bar: of a compressed
// file, its size when it is read whole (an append is counted as nothing: its share of the
// compressed bytes is not known).
func (j job) planned() int64 {
	switch {
	case !j.entry.Compressed:
		return j.info.Size() - j.from
	case j.from == 0:
		return j.info.Size()
	}
	return 0
}

// Update brings the index in dir up to date with files (the session files under roots): new
// and rewritten files are read whole, grown ones from where the index stopped, unchanged ones
// not at all; files under roots that are gone are forgotten. The manifest is replaced last,
// so a run killed at any moment leaves the index as it was or as it is after the run.
func Update(dir string, files, roots []string, opts UpdateOptions) (UpdateStats, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return UpdateStats{}, err
	}
	unlock, err := safewrite.Lock(filepath.Join(dir, manifestName))
	if err != nil {
		return UpdateStats{}, err
	}
	defer unlock()
	u := &updater{dir: dir, opts: opts}
	if err := u.open(); err != nil {
		return UpdateStats{}, err
	}
	removeStrays(dir, u.m)
	jobs := u.plan(files, roots)
	if err := u.run(jobs); err != nil {
		u.syncs.Wait() // (what was written is a stray: the next update removes it)
		return u.st, err
	}
	u.mergeSegments()
	if err := u.synced(); err != nil {
		return u.st, err
	}
	return u.st, u.commit()
}

// open reads the index's manifest to update (a clone: the one read may be shared), or starts
// a new one: where there is none, or one of another layout (rebuilt once, saying why).
func (u *updater) open() error {
	m, err := readManifest(u.dir)
	var le *LayoutError
	switch {
	case err == nil:
		u.m = m.clone()
	case errors.Is(err, ErrNoIndex):
		u.m = newManifest()
	case errors.As(err, &le):
		u.m = newManifest()
		u.st.Rebuilt = true
		if u.opts.Notice != nil {
			u.opts.Notice(fmt.Sprintf("index %s: rebuilding it: %v", u.dir, le))
		}
	default:
		return err
	}
	return nil
}

type updater struct {
	dir  string
	m    *Manifest
	opts UpdateOptions
	st   UpdateStats
	old  []string // segment files no longer named once the new manifest is written
	// changed: the manifest differs from the one read (a file read or forgotten, a folder's
	// listing new or replaced); else it is not written again.
	changed bool

	mu   sync.Mutex
	segs []SegmentInfo

	syncs   sync.WaitGroup // the syncs of the segments written (syncLater)
	syncErr error          // the first that failed
}

// plan sorts files into those to read (whole or their appended lines) and unchanged ones, and
// forgets the files under roots that are not among files.
func (u *updater) plan(files, roots []string) []job {
	seen := map[string]bool{}
	var paths, abss []string
	for i, abs := range absPaths(files) {
		p := files[i]
		if abs == "" || seen[abs] {
			continue
		}
		seen[abs] = true
		paths, abss = append(paths, p), append(abss, abs)
	}
	stats, errs := statAll(abss)
	var jobs []job
	for i, abs := range abss {
		u.st.Files++
		if errs[i] != nil {
			u.fail(fmt.Errorf("%s: %w", paths[i], errs[i]))
			continue
		}
		if e := u.m.Files[abs]; e != nil && e.Size == stats[i].size && e.MTime == stats[i].mtime {
			u.st.Unchanged++
			continue
		}
		info, err := transcript.Stat(abs)
		if err != nil {
			u.fail(fmt.Errorf("%s: %w", paths[i], err))
			continue
		}
		if j, ok := u.planFile(abs, info); ok {
			jobs = append(jobs, j)
		} else {
			u.st.Unchanged++
		}
	}
	u.forget(roots, seen)
	return jobs
}

// planFile says what to read of one file; false: it is unchanged.
func (u *updater) planFile(abs string, info os.FileInfo) (job, bool) {
	e := u.m.Files[abs]
	if e != nil && e.Size == info.Size() && e.MTime == info.ModTime().UnixNano() {
		return job{}, false
	}
	z := compressed(abs)
	if e != nil && e.Compressed == z && (z || info.Size() >= e.Done) && e.Done > 0 && tailMatches(abs, e) {
		c := *e
		return job{path: abs, info: info, entry: &c, from: e.Done}, true
	}
	return job{path: abs, info: info, entry: &FileEntry{Compressed: z}, from: 0}, true
}

// forget drops the files under roots that were not found this time.
func (u *updater) forget(roots []string, seen map[string]bool) {
	var absRoots []string
	for _, a := range absPaths(roots) {
		if a != "" {
			absRoots = append(absRoots, a)
		}
	}
	for p := range u.m.Files {
		if seen[p] {
			continue
		}
		for _, r := range absRoots {
			if under(p, r) {
				delete(u.m.Files, p)
				u.st.Removed++
				u.changed = true
				break
			}
		}
	}
	if u.opts.Dirs != nil {
		u.keepListings(absRoots)
	}
}

// keepListings replaces the folders' listings under roots with those of the walk.
func (u *updater) keepListings(roots []string) {
	for p, l := range u.opts.Dirs {
		if u.m.Dirs[p] != l {
			u.changed = true // a listing new or read again
		}
	}
	for p := range u.m.Dirs {
		for _, r := range roots {
			if under(p, r) {
				if u.opts.Dirs[p] == nil {
					u.changed = true // a folder gone, or not walked
				}
				delete(u.m.Dirs, p)
				break
			}
		}
	}
	for p, l := range u.opts.Dirs {
		u.m.Dirs[p] = l
	}
}

func (u *updater) fail(err error) {
	u.st.Failed++
	if u.opts.Warn != nil {
		u.opts.Warn(err)
	}
}

// tailMatches reports whether the bytes before e.Done are still those indexed.
func tailMatches(path string, e *FileEntry) bool {
	h, err := tailHash(path, e.Done)
	return err == nil && h == e.Tail
}

// run reads the jobs on opts.Jobs workers, each filling segments of its own.
func (u *updater) run(jobs []job) error {
	if len(jobs) > 0 {
		u.changed = true
	}
	var total int64
	for _, j := range jobs {
		total += j.planned()
	}
	if u.opts.Planned != nil {
		u.opts.Planned(total)
	}
	// Large files first: the workers end together.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].planned() > jobs[b].planned() })
	n := u.opts.Jobs
	if n <= 0 {
		n = runtime.NumCPU()
	}
	n = min(n, len(jobs)) // (none: nothing changed, no segment to start)
	ch := make(chan job)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- u.worker(ch)
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// worker indexes the jobs it takes into segments of its own.
func (u *updater) worker(ch <-chan job) error {
	fr := &fileReader{b: newBuilder()}
	var failed error
	for j := range ch {
		if failed != nil {
			continue // drain: the update fails as a whole
		}
		failed = u.index(fr, j)
	}
	if failed != nil {
		return failed
	}
	return u.flush(fr.b)
}

// spill writes the segment fr fills once it holds segmentText, and starts the next: between
// files, or within one at a line's end (its lines then lie in two segments, as a grown file's
// do).
func (u *updater) spill(fr *fileReader) error {
	if fr.b.text < segmentText {
		return nil
	}
	if fr.e != nil {
		fr.b.endFile(fr.e.ID)
	}
	if err := u.flush(fr.b); err != nil {
		return err
	}
	fr.b = newBuilder()
	return nil
}

// index reads one job's lines into fr's segment and records the file's new entry.
func (u *updater) index(fr *fileReader, j job) error {
	u.mu.Lock()
	if j.from == 0 {
		if u.m.NextFile == math.MaxUint32 {
			u.mu.Unlock()
			return fmt.Errorf("index %s: its file ids are spent (remove the index to rebuild it)", u.dir)
		}
		j.entry.ID = u.m.NextFile
		u.m.NextFile++
	}
	u.mu.Unlock()
	fr.e, fr.format, fr.docs = j.entry, u.opts.Format, 0
	fr.spill = func() error { return u.spill(fr) }
	err := fr.read(j.path, j.from, j.info.Size())
	b := fr.b
	fr.e, fr.spill = nil, nil
	if u.opts.Done != nil {
		u.opts.Done(j.planned())
	}
	u.mu.Lock()
	if err != nil {
		b.dropFile()
		delete(u.m.Files, j.path) // read whole under a new id next time: what was read is dead
		u.mu.Unlock()
		if errors.Is(err, errSpill) {
			return err // a segment could not be written: the update fails as a whole
		}
		u.mu.Lock()
		u.fail(err)
		u.mu.Unlock()
		return nil
	}
	b.endFile(j.entry.ID)
	j.entry.Size, j.entry.MTime = j.info.Size(), j.info.ModTime().UnixNano()
	u.m.Files[j.path] = j.entry
	u.st.Messages += fr.docs
	u.st.Bytes += j.entry.Done - j.from
	if j.from > 0 {
		u.st.Appended++
	} else {
		u.st.Indexed++
	}
	u.mu.Unlock()
	return u.spill(fr)
}

// flush writes b as a new segment (nothing when it is empty).
func (u *updater) flush(b *builder) error {
	if b.empty() {
		return nil
	}
	u.mu.Lock()
	name := fmt.Sprintf("seg-%06d.idx", u.m.NextSeg)
	u.m.NextSeg++
	u.mu.Unlock()
	f, err := b.writeUnsynced(filepath.Join(u.dir, name))
	if err != nil {
		return err
	}
	u.syncLater(f)
	u.mu.Lock()
	u.segs = append(u.segs, SegmentInfo{Name: name, Docs: len(b.docs), Length: b.totalLn, Text: b.text})
	u.mu.Unlock()
	return nil
}

// syncLater syncs a segment written while the worker that wrote it reads on (a sync waits for
// the disk); synced waits for every sync, before a manifest names the segments.
func (u *updater) syncLater(f *os.File) {
	u.syncs.Add(1)
	go func() {
		defer u.syncs.Done()
		if err := syncClose(f); err != nil {
			u.mu.Lock()
			u.syncErr = cmp.Or(u.syncErr, err)
			u.mu.Unlock()
		}
	}()
}

// synced waits for the segments' syncs; an error when one failed.
func (u *updater) synced() error {
	u.syncs.Wait()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.syncErr != nil {
		return fmt.Errorf("index %s: %w", u.dir, u.syncErr)
	}
	return nil
}

// commit writes the manifest (which mergeSegments made name the new segments), then removes
// the segments it no longer names.
func (u *updater) commit() error {
	if !u.changed && u.m.raw != nil {
		return nil // nothing changed: the manifest stays as it is
	}
	enc := u.m.encode()
	if len(enc) > maxManifest {
		return fmt.Errorf("index %s: its manifest would pass %d bytes (%d sessions): keep fewer sessions in one index (--db)", u.dir, maxManifest, len(u.m.Files))
	}
	if err := u.m.write(u.dir, enc); err != nil {
		return err
	}
	path := filepath.Join(u.dir, manifestName)
	if info, err := os.Stat(path); err == nil && info.Size() == int64(len(enc)) {
		u.m.raw = enc
		keepManifest(path, info, u.m) // a search that follows reads it from here
	}
	for _, name := range u.old {
		os.Remove(filepath.Join(u.dir, name))
	}
	return nil
}

// removeStrays deletes segment files the manifest does not name: those of an update that was
// killed before it wrote its manifest, or of the index of an older ctxc (with its manifest).
func removeStrays(dir string, m *Manifest) {
	named := map[string]bool{}
	for _, s := range m.Segments {
		named[s.Name] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		if (strings.HasPrefix(n, "seg-") && strings.HasSuffix(n, ".idx") || strings.HasPrefix(n, ".ctxc-") || n == legacyManifest) && !named[n] {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

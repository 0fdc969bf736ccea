package index

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"
)

// manifestView is a whole manifest read as bytes, for grep and its walker: a folder's listing
// and the states of the files grep was given are found in the bytes, without decoding every
// entry into maps as an update does. A query of an archive of thousands of sessions then
// touches little memory besides the manifest's own bytes.
type manifestView struct {
	s      string // the manifest's bytes up to its ids
	layout manifestLayout
	dirs   []int32 // the offset of each folder's record, in path order
	files  []int32 // the offset of each file's entry (its path first), in path order
}

// newManifestView checks a whole manifest (checksum, layout, schema) and finds its folders.
func newManifestView(dir string, data []byte) (*manifestView, error) {
	l, err := checkManifest(data)
	if err != nil {
		return nil, &IndexError{dir, fmt.Errorf("%s: %w", manifestName, err)}
	}
	v := &manifestView{s: unsafe.String(unsafe.SliceData(data), l.idsAt), layout: l}
	d := &decoder{s: v.s, at: len(manifestMagic)}
	if err := checkSchema(dir, int(d.uint())); err != nil {
		return nil, err
	}
	d.at = l.filesAt
	n := d.count(12)
	v.files = make([]int32, 0, n)
	var e FileEntry
	for range n {
		v.files = append(v.files, int32(d.at))
		d.str()
		d.entry(&e)
	}
	d.expect(l.dirsAt, "the folders")
	n = d.count(3)
	v.dirs = make([]int32, 0, n)
	for range n {
		v.dirs = append(v.dirs, int32(d.at))
		d.str()
		d.int()
		for range d.count(1) {
			d.str()
		}
	}
	d.expect(l.idsAt, "the ids")
	if d.err != nil {
		return nil, &IndexError{dir, fmt.Errorf("%s: %w", manifestName, d.err)}
	}
	return v, nil
}

// listing finds the listing of the folder abs; nil when the index kept none.
func (v *manifestView) listing(abs string) *Listing {
	i := sort.Search(len(v.dirs), func(i int) bool {
		d := decoder{s: v.s, at: int(v.dirs[i])}
		return d.str() >= abs
	})
	if i == len(v.dirs) {
		return nil
	}
	d := decoder{s: v.s, at: int(v.dirs[i])}
	if d.str() != abs {
		return nil
	}
	l := &Listing{MTime: d.int()}
	l.Names = make([]string, d.count(1))
	for j := range l.Names {
		l.Names[j] = d.str()
	}
	if d.err != nil {
		return nil // (checked whole by newManifestView: not reached)
	}
	return l
}

// indexedState is what grep asks of a file's entry: whether the index can answer for the file
// and what it holds of it.
type indexedState struct {
	id                uint32
	entry             int  // its place among the manifest's files
	found             bool // the manifest has an entry for the file
	compressed, scan  bool
	size, mtime, done int64
	format            string
}

// states finds the entries of files (absolute paths; "" for none), matched with the
// manifest's, which are sorted by path, in one pass over them.
func (v *manifestView) states(files []string) []indexedState {
	order := make([]int32, len(files))
	for i := range order {
		order[i] = int32(i)
	}
	if !sort.StringsAreSorted(files) { // (a walk gives them sorted)
		sort.Slice(order, func(a, b int) bool { return files[order[a]] < files[order[b]] })
	}
	out := make([]indexedState, len(files))
	k := 0
	for n := range v.files {
		if k == len(order) {
			break
		}
		path, e := v.fileAt(n)
		for k < len(order) && files[order[k]] < path {
			k++
		}
		for k < len(order) && files[order[k]] == path {
			out[order[k]] = indexedState{id: e.ID, entry: n, found: true, compressed: e.Compressed, scan: e.Scan,
				size: e.Size, mtime: e.MTime, done: e.Done, format: e.Format}
			k++
		}
	}
	return out
}

// fileAt decodes the n-th file's path and entry (checked whole by newManifestView).
func (v *manifestView) fileAt(n int) (string, FileEntry) {
	d := decoder{s: v.s, at: int(v.files[n])}
	var e FileEntry
	path := d.str()
	d.entry(&e)
	return path, e
}

// pathAt decodes the n-th file's path.
func (v *manifestView) pathAt(n int) string {
	d := decoder{s: v.s, at: int(v.files[n])}
	return d.str()
}

// filesUnder gives the files below the folder abs: those from lo to hi (exclusive).
func (v *manifestView) filesUnder(abs string) (lo, hi int) {
	prefix := strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator)
	lo = sort.Search(len(v.files), func(n int) bool { return v.pathAt(n) >= prefix })
	hi = lo + sort.Search(len(v.files)-lo, func(n int) bool { return !strings.HasPrefix(v.pathAt(lo+n), prefix) })
	return lo, hi
}

// absPaths makes paths absolute as filepath.Abs does, asking for the working folder once
// (filepath.Abs asks for it, with two stats, for each relative path). A path whose absolute
// form cannot be known is "".
func absPaths(paths []string) []string {
	out := make([]string, len(paths))
	var wd string
	var wdErr error
	for i, p := range paths {
		if filepath.IsAbs(p) {
			out[i] = cleanPath(p)
			continue
		}
		if wd == "" && wdErr == nil {
			if wd, wdErr = os.Getwd(); wdErr == nil && !filepath.IsAbs(wd) {
				wdErr = fmt.Errorf("working folder %q is not absolute", wd)
			}
		}
		if wdErr == nil {
			out[i] = filepath.Join(wd, p)
		}
	}
	return out
}

// cleanPath is filepath.Clean(p) for an absolute path, without Clean's byte-by-byte pass when
// p is clean already, as the paths a walk makes are: it looks at what follows each separator.
func cleanPath(p string) string {
	if filepath.Separator != '/' || !isCleanAbs(p) {
		return filepath.Clean(p)
	}
	return p
}

// isCleanAbs reports whether the absolute slash-separated path p is what Clean gives: no
// empty, "." or ".." element, no trailing separator (but for "/").
func isCleanAbs(p string) bool {
	if p == "/" {
		return true
	}
	if p == "" || p[0] != '/' {
		return false
	}
	for rest := p[1:]; ; {
		i := strings.IndexByte(rest, '/')
		elem := rest
		if i >= 0 {
			elem = rest[:i]
		}
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if i < 0 {
			return true
		}
		rest = rest[i+1:]
	}
}

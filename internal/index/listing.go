package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"
)

// Listing is what a folder held when the index last read it: its modification time (ns) and
// the names of its folders (with a trailing "/") and regular files, sorted as os.ReadDir sorts.
type Listing struct {
	MTime int64
	Names []string
}

// racyWindow: a folder changed this recently may change again within the same tick of its
// clock, leaving its time as it was; its listing is not kept.
const racyWindow = 2 * time.Second

// Walker walks folders as filepath.WalkDir does, for the callers that want their folders and
// regular files: it visits the same ones, in the same order. A folder whose modification time
// is the one of a listing the index kept is not read again: adding, removing or renaming an
// entry changes a folder's time, so the listing is what a read would give. An archive of
// thousands of sessions in hundreds of folders is then walked with one stat per folder.
type Walker struct {
	Known map[string]*Listing // the index's listings (nil: none, or those of view)
	Seen  map[string]*Listing // the listings of the folders walked, to keep in the index
	start time.Time
	view  *manifestView // the index's listings, found in its manifest's bytes
	pre   *prestat      // states the indexed files below each folder walked, meanwhile
	// discard: Seen is not kept (a walk for a query, which writes no index).
	discard bool
	paths   pathArena
}

// NewWalker gives a walker of the listings kept by the index in dir (none when it has none).
func NewWalker(dir string) *Walker {
	w := &Walker{Seen: map[string]*Listing{}, start: time.Now()}
	if m, err := readManifest(dir); err == nil {
		w.Known = m.Dirs
	}
	return w
}

// WalkDir calls fn for root and for every folder, regular file and symbolic link below it, as
// filepath.WalkDir(root, fn) does for those, in the same order (other files are not visited;
// links are not followed: the caller follows them, transcript.Finder).
func (w *Walker) WalkDir(root string, fn fs.WalkDirFunc) error {
	info, err := os.Lstat(root)
	if err != nil || !info.IsDir() {
		return filepath.WalkDir(root, fn)
	}
	abs := absPaths([]string{root})[0]
	if abs == "" {
		return filepath.WalkDir(root, fn)
	}
	if w.Seen == nil && !w.discard {
		w.Seen = map[string]*Listing{}
	}
	if w.pre != nil {
		w.pre.start(abs)
	}
	return w.walk(root, abs, fs.FileInfoToDirEntry(info), info.ModTime().UnixNano(), fn)
}

// walk visits the folder path (abs: its absolute path, the key of its listing; mtime: its
// time).
func (w *Walker) walk(path, abs string, d fs.DirEntry, mtime int64, fn fs.WalkDirFunc) error {
	if err := fn(path, d, nil); err != nil {
		if err == filepath.SkipDir {
			return nil
		}
		return err
	}
	names, links, err := w.list(abs, mtime)
	if err != nil {
		return fn(path, d, err)
	}
	join := w.paths.joiner(path)
	dirs := lstatDirs(names, join)
	linksBefore := func(name string) error { // (the links, in their place among the names)
		for len(links) > 0 && (name == "" || links[0] < name) {
			child := join(links[0])
			links = links[1:]
			if err := fn(child, linkEntry(child), nil); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range names {
		base, isDir := strings.CutSuffix(name, "/")
		if err := linksBefore(base); err != nil {
			return err
		}
		if !isDir {
			child := join(base)
			if err := fn(child, fileEntry(child), nil); err != nil {
				return err
			}
			continue
		}
		c := dirs[0]
		dirs = dirs[1:]
		switch {
		case os.IsNotExist(c.err):
			continue // removed since the listing was taken or read
		case c.err != nil:
			if err := fn(c.path, dirEntry(c.path), c.err); err != nil {
				return err
			}
			continue
		case !c.isDir:
			continue // replaced by a file: its parent's time changed, so this is a read listing
		}
		if err := w.walk(c.path, filepath.Join(abs, base), dirEntry(c.path), c.mtime, fn); err != nil {
			return err
		}
	}
	return linksBefore("")
}

// childDir is a folder named in a listing, as lstat found it.
type childDir struct {
	path  string
	isDir bool
	mtime int64
	err   error
}

// lstatDirs states the folders among the names of a folder (those ending in "/"; join gives
// their paths), in their order. It states them itself: goroutines of its own would queue
// behind those that state the files meanwhile (prestat), and the walk would wait for them.
func lstatDirs(names []string, join func(string) string) []childDir {
	var dirs []childDir
	var s statter
	for _, name := range names {
		if base, isDir := strings.CutSuffix(name, "/"); isDir {
			c := childDir{path: join(base)}
			c.isDir, c.mtime, c.err = s.lstat(c.path)
			dirs = append(dirs, c)
		}
	}
	return dirs
}

// list gives a folder's names (abs: its absolute path) and the names of its symbolic links:
// the index's listing when the folder's time is the listing's, else those read from the disk.
// A listing holds no links: a folder with links is not kept, and is read each time.
func (w *Walker) list(abs string, mtime int64) (names, links []string, err error) {
	if l := w.known(abs); l != nil && l.MTime == mtime {
		w.keep(abs, l)
		return l.Names, nil, nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, nil, err
	}
	names = make([]string, 0, len(entries))
	for _, e := range entries {
		switch {
		case e.IsDir():
			names = append(names, e.Name()+"/")
		case e.Type().IsRegular():
			names = append(names, e.Name())
		case e.Type()&fs.ModeSymlink != 0:
			links = append(links, e.Name())
		}
	}
	if len(links) == 0 && time.Unix(0, mtime).Before(w.start.Add(-racyWindow)) {
		w.keep(abs, &Listing{MTime: mtime, Names: names})
	}
	return names, links, nil
}

// known finds the index's listing of the folder abs (nil: none).
func (w *Walker) known(abs string) *Listing {
	if w.Known != nil {
		return w.Known[abs]
	}
	if w.view != nil {
		return w.view.listing(abs)
	}
	return nil
}

// keep records a listing to keep in the index.
func (w *Walker) keep(abs string, l *Listing) {
	if !w.discard {
		w.Seen[abs] = l
	}
}

// fileEntry and dirEntry are the fs.DirEntry of a listed name, by its path.
type fileEntry string

func (e fileEntry) Name() string               { return filepath.Base(string(e)) }
func (e fileEntry) IsDir() bool                { return false }
func (e fileEntry) Type() fs.FileMode          { return 0 }
func (e fileEntry) Info() (fs.FileInfo, error) { return os.Lstat(string(e)) }

type dirEntry string

type linkEntry string

func (e linkEntry) Name() string               { return filepath.Base(string(e)) }
func (e linkEntry) IsDir() bool                { return false }
func (e linkEntry) Type() fs.FileMode          { return fs.ModeSymlink }
func (e linkEntry) Info() (fs.FileInfo, error) { return os.Lstat(string(e)) }

func (e dirEntry) Name() string               { return filepath.Base(string(e)) }
func (e dirEntry) IsDir() bool                { return true }
func (e dirEntry) Type() fs.FileMode          { return fs.ModeDir }
func (e dirEntry) Info() (fs.FileInfo, error) { return os.Lstat(string(e)) }

// pathArena makes the paths of a walk's entries: filepath.Join's, built in shared chunks of
// memory when the folder's path is clean (then folder + "/" + name is already what Join
// gives), instead of a cleaned copy each. A walk of thousands of files otherwise spends more
// on those small copies, and the pages they touch, than on its system calls.
type pathArena struct {
	chunk []byte
}

// pathChunk is the size of the arena's chunks.
const pathChunk = 16 << 10

// joiner gives the function that joins a name of the folder dir to its path.
func (a *pathArena) joiner(dir string) func(name string) string {
	if dir == "" || dir == "." || os.IsPathSeparator(dir[len(dir)-1]) || filepath.Clean(dir) != dir ||
		filepath.VolumeName(dir) == dir { // ("C:" and a name join as "C:name")
		return func(name string) string { return filepath.Join(dir, name) }
	}
	return func(name string) string { return a.join(dir, name) }
}

// join is dir + separator + name, carved from the current chunk.
func (a *pathArena) join(dir, name string) string {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		return filepath.Join(dir, name) // (not a name os.ReadDir gives)
	}
	n := len(dir) + 1 + len(name)
	if cap(a.chunk)-len(a.chunk) < n {
		a.chunk = make([]byte, 0, max(pathChunk, n))
	}
	at := len(a.chunk)
	a.chunk = append(append(append(a.chunk, dir...), filepath.Separator), name...)
	return unsafe.String(&a.chunk[at], n)
}

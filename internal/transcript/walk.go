package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxc/ctxc/internal/sessionstore"
)

// ErrLinkLoop is the problem of a symbolic link to a folder it is in: it is not followed.
var ErrLinkLoop = errors.New("a symbolic link to a folder it is in (a loop): not followed")

// WalkProblem is what a directory walk met and went past: a folder below the walked one that
// could not be read (Err, with its reason), or a symbolic link back to a folder it is in
// (ErrLinkLoop). The files found elsewhere are still found.
type WalkProblem struct {
	Path string
	Err  error
}

func (p WalkProblem) Error() string { return p.Path + ": " + p.Err.Error() }

// Unreadable says whether the problem left files unread (a folder that could not be read),
// not only a link that would have found them again (a loop).
func (p WalkProblem) Unreadable() bool { return !errors.Is(p.Err, ErrLinkLoop) }

// A Finder finds the sessions that folders stand for as arguments, by one rule for every command
// that walks folders (on the command line, in the index, through MCP):
//
//   - the files Found below the folder, in lexical order, an OpenClaw store standing for each of
//     its sessions;
//   - symbolic links are followed, the folder given and those met below it, to folders and to
//     files; a link to a folder it is in (a loop) is not followed and is said once (Problems);
//   - a file reached twice (through links, or below two folders given) is found once, under the
//     first path it was met by: the walk's own before those through links, in lexical order;
//   - a folder below the one given that cannot be read is said (Problems) and the walk goes on;
//     the folder given itself unreadable is an error.
//
// Walk is the walk of one folder (filepath.WalkDir, or the index's Walker, which reports
// symbolic links as entries, as filepath.WalkDir does, and does not follow them).
type Finder struct {
	Archived bool
	Walk     func(string, fs.WalkDirFunc) error
	// Problems are what the walks met and went past, each once, in the order met.
	Problems []WalkProblem

	// The state of one call of Below: the folders walked (by real path), the files found by
	// the walks and through links to files, and the links to folders left to walk.
	visited              map[string]bool
	files, linked, links []found
	seen                 map[string]bool // the real paths of the files found
	said                 map[string]bool // the paths of the Problems
}

// NewFinder is a Finder walking with walk (nil: filepath.WalkDir).
func NewFinder(archived bool, walk func(string, fs.WalkDirFunc) error) *Finder {
	if walk == nil {
		walk = filepath.WalkDir
	}
	return &Finder{Archived: archived, Walk: walk, seen: map[string]bool{}, said: map[string]bool{}}
}

// found is a file or a folder met by a walk: its path as shown, and its real path (without
// links).
type found struct{ path, real string }

// Below finds the sessions of the folder dir (Finder); a file found by an earlier call is not
// found again, and again counts those.
func (f *Finder) Below(dir string) (sessions []string, again int, err error) {
	real, err := realPath(dir)
	if err != nil {
		return nil, 0, err
	}
	f.visited, f.files, f.linked, f.links = map[string]bool{}, nil, nil, nil
	if err := f.walkOne(found{filepath.Clean(dir), real}, true); err != nil {
		return nil, 0, err
	}
	for len(f.links) > 0 { // (folders through links, after the walk's own: their own links last)
		link := f.links[0]
		f.links = f.links[1:]
		if err := f.walkOne(link, false); err != nil {
			f.problem(link.real, link.path, err)
		}
	}
	return f.sessions(append(f.files, f.linked...))
}

// realPath is the absolute path of p without symbolic links.
func realPath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// walkOne walks the folder dir, adding the files it finds to f.files and the links it meets to
// f.linked (files) and f.links (folders). An error of the folder itself is returned when top,
// else said.
func (f *Finder) walkOne(dir found, top bool) error {
	path, real := dir.path, dir.real
	start := path
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		start = path + string(filepath.Separator) // (a walk does not enter a link it starts at)
	}
	realOf := func(p string) string { return joinReal(real, path, p) }
	return f.Walk(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if top && filepath.Clean(p) == path {
				return fmt.Errorf("%s: %w", p, err)
			}
			f.problem(realOf(p), p, err)
			return nil // (and the walk goes on)
		}
		switch {
		case d.IsDir():
			r := realOf(p)
			if f.visited[r] {
				return filepath.SkipDir // (walked through a link already)
			}
			f.visited[r] = true
		case d.Type().IsRegular():
			if Found(p, d.Name(), f.Archived) {
				f.files = append(f.files, found{p, realOf(p)})
			}
		case d.Type()&fs.ModeSymlink != 0:
			f.link(p, d.Name(), realOf(filepath.Dir(p)))
		}
		return nil
	})
}

// link follows the symbolic link p (name, in the folder whose real path is dir): a file is
// found as any other, a folder is walked later unless it was walked or is one p is in.
func (f *Finder) link(p, name, dir string) {
	info, err := os.Stat(p)
	if err != nil {
		return // a link to nothing (an editor's lock file, a removed session): nothing to read
	}
	target, err := realPath(p)
	if err != nil {
		return
	}
	switch {
	case info.Mode().IsRegular():
		if Found(p, name, f.Archived) {
			f.linked = append(f.linked, found{p, target})
		}
	case !info.IsDir():
	case dir == target || strings.HasPrefix(dir, target+string(filepath.Separator)) || target == string(filepath.Separator):
		f.problem(filepath.Join(dir, name), p, ErrLinkLoop)
	case !f.visited[target]:
		f.links = append(f.links, found{p, target})
	}
}

// joinReal is the real path of p, a path below the walked folder root whose real path is real.
func joinReal(real, root, p string) string {
	rel, ok := "", false
	switch {
	case p == root || p == root+string(filepath.Separator):
		return real
	case root == ".":
		rel, ok = p, !filepath.IsAbs(p)
	default:
		rel, ok = strings.CutPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
		if ok && real == root && plainName(rel) {
			return p // a folder that is its own real path, and a name below it: p as it is
		}
	}
	if !ok {
		var err error
		if rel, err = filepath.Rel(root, p); err != nil {
			return p
		}
	}
	return filepath.Join(real, rel)
}

// plainName reports whether rel is one name, or names joined by single separators, none of
// them "." or "..": joined to a clean folder, it gives a clean path.
func plainName(rel string) bool {
	if rel == "" || rel[len(rel)-1] == filepath.Separator {
		return false
	}
	for _, n := range strings.Split(rel, string(filepath.Separator)) {
		if n == "" || n == "." || n == ".." {
			return false
		}
	}
	return true
}

// problem records the problem err of the path p once, by key, its real path: a folder or link
// met by two paths is said once.
func (f *Finder) problem(key, p string, err error) {
	if f.said[key] {
		return
	}
	f.said[key] = true
	f.Problems = append(f.Problems, WalkProblem{Path: p, Err: err})
}

// sessions are the files not found before, in lexical order, an OpenClaw store standing for
// each of its sessions.
func (f *Finder) sessions(files []found) ([]string, int, error) {
	paths := make([]string, 0, len(files))
	again := 0
	for _, fl := range files {
		if f.seen[fl.real] {
			again++
			continue
		}
		f.seen[fl.real] = true
		paths = append(paths, fl.path)
	}
	if !sort.StringsAreSorted(paths) { // (a walk's order, but for names such as "a.b" and "a/b", and links)
		sort.Strings(paths)
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !sessionstore.NamedAsStore(p) {
			out = append(out, p) // (StoreSessions' answer, without its slice)
			continue
		}
		sessions, err := StoreSessions(p)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, sessions...)
	}
	return out, again, nil
}

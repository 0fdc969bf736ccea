package index

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// visits lists what a walk visits: each folder, regular file and symbolic link ("@"), in order.
func visits(t *testing.T, walk func(string, fs.WalkDirFunc) error, root string) []string {
	t.Helper()
	var out []string
	err := walk(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out = append(out, p+"/")
		case d.Type().IsRegular():
			out = append(out, p)
		case d.Type()&fs.ModeSymlink != 0:
			out = append(out, p+"@")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// age sets the time of every folder under root an hour back, as an archive's folders are.
func age(t *testing.T, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// TestWalkerVisitsAsWalkDir: on a tree that changes between walks (files and folders added,
// removed, renamed, a file replaced by a folder, a symbolic link), the walker that reuses the
// previous walk's listings visits what filepath.WalkDir visits, in the same order.
func TestWalkerVisitsAsWalkDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	rnd := rand.New(rand.NewSource(7))
	var dirs []string
	dirs = append(dirs, root)
	os.MkdirAll(root, 0o755)
	for i := range 40 {
		parent := dirs[rnd.Intn(len(dirs))]
		if rnd.Intn(4) == 0 {
			d := filepath.Join(parent, fmt.Sprintf("d%02d", i))
			os.Mkdir(d, 0o755)
			dirs = append(dirs, d)
			continue
		}
		os.WriteFile(filepath.Join(parent, fmt.Sprintf("f%02d.jsonl", i)), []byte("{}\n"), 0o644)
	}
	mutations := []func(){
		func() {}, // nothing changed: every listing is reused
		func() { os.WriteFile(filepath.Join(dirs[len(dirs)-1], "new.jsonl"), nil, 0o644) },
		func() { os.Mkdir(filepath.Join(dirs[1], "a-new-folder"), 0o755) },
		func() {
			os.WriteFile(filepath.Join(dirs[1], "a-new-folder", "inner.jsonl"), nil, 0o644)
		},
		func() { os.RemoveAll(dirs[len(dirs)/2]) },
		func() {
			os.Rename(filepath.Join(dirs[len(dirs)-1], "new.jsonl"), filepath.Join(root, "moved.jsonl"))
		},
		func() {
			os.Remove(filepath.Join(root, "moved.jsonl"))
			os.Mkdir(filepath.Join(root, "moved.jsonl"), 0o755)
			os.WriteFile(filepath.Join(root, "moved.jsonl", "x.jsonl"), nil, 0o644)
		},
		func() { os.Symlink(dirs[1], filepath.Join(root, "zz-link")) },
		func() {}, // (a folder with a link is read again, not trusted to its listing)
		func() { os.Symlink("f00.jsonl", filepath.Join(root, "a-link.jsonl")) },
		func() { os.Symlink("nowhere", filepath.Join(root, "moved.jsonl", "w-dangling")) },
	}
	known := map[string]*Listing{}
	for i, mutate := range mutations {
		mutate()
		if i%2 == 0 {
			age(t, root) // a listing is kept only for a folder not changed in the last seconds
		}
		w := &Walker{Known: known, start: time.Now()}
		got := visits(t, w.WalkDir, root)
		want := visits(t, filepath.WalkDir, root)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after mutation %d:\nwalker  %q\nWalkDir %q", i, got, want)
		}
		if i%2 == 0 && len(w.Seen) == 0 {
			t.Fatalf("after mutation %d: no listing kept", i)
		}
		// grep's walker finds the same listings in the manifest's bytes, and keeps none.
		m := newManifest()
		m.Dirs = known
		v, err := newManifestView("index", m.encode())
		if err != nil {
			t.Fatal(err)
		}
		vw := &Walker{view: v, start: time.Now(), discard: true}
		if got := visits(t, vw.WalkDir, root); !reflect.DeepEqual(got, want) {
			t.Fatalf("after mutation %d:\nmanifest's walker %q\nWalkDir           %q", i, got, want)
		}
		if vw.Seen != nil {
			t.Fatalf("after mutation %d: a query's walk kept listings", i)
		}
		known = w.Seen
	}
}

// TestWalkerTrustsAnUnchangedFolder: a folder whose time is its listing's is not read again
// (the listing names a file that is not there, and the walk visits it), and a folder changed
// within the racy window is not kept.
func TestWalkerTrustsAnUnchangedFolder(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.jsonl"), nil, 0o644)
	info, _ := os.Lstat(root)
	abs, _ := filepath.Abs(root)
	known := map[string]*Listing{abs: {MTime: info.ModTime().UnixNano(), Names: []string{"a.jsonl", "b.jsonl"}}}
	w := &Walker{Known: known, start: time.Now()}
	trusted := []string{root + "/", filepath.Join(root, "a.jsonl"), filepath.Join(root, "b.jsonl")}
	if got := visits(t, w.WalkDir, root); !reflect.DeepEqual(got, trusted) {
		t.Errorf("walk: %q", got)
	}
	m := newManifest()
	m.Dirs = known
	v, err := newManifestView("index", m.encode())
	if err != nil {
		t.Fatal(err)
	}
	w = &Walker{view: v, start: time.Now(), discard: true}
	if got := visits(t, w.WalkDir, root); !reflect.DeepEqual(got, trusted) {
		t.Errorf("walk with the manifest's listings: %q", got)
	}
	w = &Walker{start: time.Now()}
	visits(t, w.WalkDir, root)
	if len(w.Seen) != 0 {
		t.Errorf("a folder changed just now was kept: %v", w.Seen)
	}
}

// TestUpdateKeepsAnUnchangedManifest: an update that finds nothing changed (files and folders)
// does not write the manifest again; a new folder's listing, or a grown file, does.
func TestUpdateKeepsAnUnchangedManifest(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 4)
	age(t, src)
	dir := filepath.Join(t.TempDir(), "index")
	update := func() os.FileInfo {
		t.Helper()
		w := NewWalker(dir)
		var found []string
		w.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				found = append(found, p)
			}
			return nil
		})
		if len(found) < len(files) {
			t.Fatalf("walk found %d files, want %d or more", len(found), len(files))
		}
		if _, err := Update(dir, found, []string{src}, UpdateOptions{Dirs: w.Seen}); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(dir, manifestName))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	first := update()
	if again := update(); !os.SameFile(first, again) {
		t.Error("an update that changed nothing wrote the manifest")
	}
	os.Mkdir(filepath.Join(src, "later"), 0o755)
	age(t, src)
	third := update()
	if os.SameFile(first, third) {
		t.Error("a new folder's listing was not kept")
	}
	f, _ := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","message":{"role":"user","content":"one more"}}` + "\n")
	f.Close()
	if fourth := update(); os.SameFile(third, fourth) {
		t.Error("a grown file did not change the manifest")
	}
}

// TestWalkerPathsAreWalkDirs: however the root is spelled (relative, with "./", "..", a
// trailing or doubled separator), the walker gives the paths filepath.WalkDir gives, those it
// builds from shared memory included.
func TestWalkerPathsAreWalkDirs(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "s")
	for _, d := range []string{"a/b", "a/c", ".hidden/x"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for i, f := range []string{"top.jsonl", "a/b/one.jsonl", "a/b/two.jsonl", "a/c/three.jsonl", ".hidden/x/four.jsonl"} {
		os.WriteFile(filepath.Join(root, f), []byte(fmt.Sprintf("{\"n\":%d}\n", i)), 0o644)
	}
	t.Chdir(base)
	for _, r := range []string{root, root + "/", filepath.Join(base, ".", "s") + "//", "s", "./s", "s/", "s/../s", "s/a", "."} {
		want := visits(t, filepath.WalkDir, r)
		known := map[string]*Listing{}
		for pass := range 2 { // read from the disk, then from the kept listings
			w := &Walker{Known: known, start: time.Now().Add(time.Hour)}
			if got := visits(t, w.WalkDir, r); !reflect.DeepEqual(got, want) {
				t.Fatalf("root %q, pass %d:\nwalker  %q\nWalkDir %q", r, pass, got, want)
			}
			known = w.Seen
		}
	}
}

func TestIsCleanAbs(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b.jsonl", "/.claude/x", "/a/.b/..c/...", "", "a", "//", "/a/", "/a//b",
		"/./a", "/a/.", "/a/..", "/a/../b", "/..", "/a/b/", "/.", "/..a/b."} {
		want := strings.HasPrefix(p, "/") && filepath.Clean(p) == p
		if got := isCleanAbs(p); got != want {
			t.Errorf("isCleanAbs(%q) = %v, want %v", p, got, want)
		}
		if got, want := cleanPath(p), filepath.Clean(p); strings.HasPrefix(p, "/") && got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	}
}

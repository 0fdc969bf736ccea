package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes files (ending in "/": folders) and links ("name -> target") below dir.
func tree(t *testing.T, dir string, entries ...string) {
	t.Helper()
	for _, e := range entries {
		p, target, isLink := strings.Cut(e, " -> ")
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case isLink:
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		case strings.HasSuffix(e, "/"):
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestFinderFollowsLinks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []string
		args    []string // folders given, below the test's folder
		want    []string
		loops   []string
	}{
		{name: "a link given", entries: []string{"real/a.jsonl", "link -> real"},
			args: []string{"link"}, want: []string{"link/a.jsonl"}},
		{name: "a link given with a slash", entries: []string{"real/a.jsonl", "link -> real"},
			args: []string{"link/"}, want: []string{"link/a.jsonl"}},
		{name: "a link to a file inside", entries: []string{"d/a.jsonl", "out/b.jsonl", "d/b.jsonl -> ../out/b.jsonl"},
			args: []string{"d"}, want: []string{"d/a.jsonl", "d/b.jsonl"}},
		{name: "a link to a file found twice is read once, under its own path",
			entries: []string{"d/b.jsonl", "d/a.jsonl -> b.jsonl"},
			args:    []string{"d"}, want: []string{"d/b.jsonl"}},
		{name: "a link to a folder inside", entries: []string{"d/a.jsonl", "out/x/b.jsonl", "d/x -> ../out/x"},
			args: []string{"d"}, want: []string{"d/a.jsonl", "d/x/b.jsonl"}},
		{name: "a link to a folder walked already", entries: []string{"d/z/a.jsonl", "d/b -> z"},
			args: []string{"d"}, want: []string{"d/z/a.jsonl"}},
		{name: "a loop is said once", entries: []string{"d/s/a.jsonl", "d/s/up -> ..", "d/s/self -> ."},
			args: []string{"d", "d"}, want: []string{"d/s/a.jsonl"}, loops: []string{"d/s/self", "d/s/up"}},
		{name: "the folder and its link given", entries: []string{"real/a.jsonl", "link -> real"},
			args: []string{"real", "link"}, want: []string{"real/a.jsonl"}},
		{name: "a link to nothing", entries: []string{"d/a.jsonl", "d/.#b.jsonl -> me@host.1234"},
			args: []string{"d"}, want: []string{"d/a.jsonl"}},
		{name: "links of links", entries: []string{"r/a.jsonl", "l1 -> r", "d/l2 -> ../l1"},
			args: []string{"d"}, want: []string{"d/l2/a.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tree(t, dir, tc.entries...)
			t.Chdir(dir)
			f := NewFinder(true, nil)
			var got []string
			for _, a := range tc.args {
				s, _, err := f.Below(a)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, s...)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
			var loops []string
			for _, p := range f.Problems {
				if p.Unreadable() {
					t.Errorf("problem %v", p)
				}
				loops = append(loops, p.Path)
			}
			slices.Sort(loops)
			if !slices.Equal(loops, tc.loops) {
				t.Errorf("loops %q, want %q", loops, tc.loops)
			}
		})
	}
}

// A folder that cannot be read (its error injected into the walk: the tests run as root, who
// reads a chmod 000 folder) is a problem, and the walk goes on; the folder given is an error.
func TestFinderGoesPastAnUnreadableFolder(t *testing.T) {
	dir := t.TempDir()
	tree(t, dir, "d/a.jsonl", "d/locked/b.jsonl", "d/z/c.jsonl", "d/z/link -> ../locked")
	t.Chdir(dir)
	denied := &fs.PathError{Op: "open", Path: "d/locked", Err: fs.ErrPermission}
	walk := func(root string, fn fs.WalkDirFunc) error {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if filepath.Base(filepath.Clean(p)) == "locked" && d.IsDir() && err == nil {
				if err := fn(p, d, nil); err != nil {
					return err
				}
				if err := fn(p, d, denied); err != nil { // (as WalkDir calls it when the folder cannot be read)
					return err
				}
				return filepath.SkipDir // (nothing below it is read)
			}
			return fn(p, d, err)
		})
	}
	f := NewFinder(true, walk)
	sessions, _, err := f.Below("d")
	if err != nil {
		t.Fatal(err)
	}
	problems := f.Problems
	if want := []string{"d/a.jsonl", "d/z/c.jsonl"}; !slices.Equal(sessions, want) {
		t.Errorf("found %q, want %q", sessions, want)
	}
	if len(problems) != 1 || problems[0].Path != "d/locked" || !errors.Is(problems[0].Err, fs.ErrPermission) || !problems[0].Unreadable() {
		t.Errorf("problems %v, want d/locked once (the link to it too)", problems)
	}
	if _, _, err := NewFinder(true, walk).Below("d/locked"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("the folder given unreadable: %v, want its error", err)
	}
}

// The real path of a path found below a walked folder: the path itself where the folder is
// its own real path and the path is clean, else the real folder joined to what follows.
func TestJoinReal(t *testing.T) {
	for _, c := range []struct{ real, root, p, want string }{
		{"/a/b", "/a/b", "/a/b/c.jsonl", "/a/b/c.jsonl"},
		{"/a/b", "/a/b", "/a/b/d/e/c.jsonl", "/a/b/d/e/c.jsonl"},
		{"/a/b", "/a/b", "/a/b", "/a/b"},
		{"/a/b", "/a/b/", "/a/b/c.jsonl", "/a/b/c.jsonl"},
		{"/a/b", "/a/b", "/a/b/d/../c.jsonl", "/a/b/c.jsonl"},
		{"/a/b", "/a/b", "/a/b/./c.jsonl", "/a/b/c.jsonl"},
		{"/a/b", "/a/b", "/a/b/d//c.jsonl", "/a/b/d/c.jsonl"},
		{"/a/b", "/a/b", "/a/b/d/", "/a/b/d"},
		{"/real/x", "/link", "/link/c.jsonl", "/real/x/c.jsonl"},
		{"/real/x", "rel", "rel/d/c.jsonl", "/real/x/d/c.jsonl"},
		{"/", "/", "/c.jsonl", "/c.jsonl"},
	} {
		if got := joinReal(c.real, c.root, c.p); got != c.want {
			t.Errorf("joinReal(%q, %q, %q) = %q, want %q", c.real, c.root, c.p, got, c.want)
		}
	}
}

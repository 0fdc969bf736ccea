package index

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/grep"
)

// TestManifestViewStates: grep's one pass over the manifest's entries finds each file given,
// in any order, given twice, or not indexed.
func TestManifestViewStates(t *testing.T) {
	m := newManifest()
	m.Files["/a/x.jsonl"] = &FileEntry{ID: 1, Size: 10, MTime: 100, Done: 10, Format: "claude"}
	m.Files["/a/y.jsonl.zst"] = &FileEntry{ID: 2, Size: 20, MTime: 200, Done: 40, Format: "pi", Compressed: true}
	m.Files["/a.jsonl"] = &FileEntry{ID: 3, Size: 30, MTime: 300, Done: 25, Format: "codex", Scan: true}
	v, err := newManifestView("index", m.encode())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path  string
		found bool
		want  indexedState
	}{
		{"/a/y.jsonl.zst", true, indexedState{id: 2, entry: 2, found: true, compressed: true, size: 20, mtime: 200, done: 40, format: "pi"}},
		{"", false, indexedState{}},
		{"/a/x.jsonl", true, indexedState{id: 1, entry: 1, found: true, size: 10, mtime: 100, done: 10, format: "claude"}},
		{"/a/w.jsonl", false, indexedState{}},
		{"/a.jsonl", true, indexedState{id: 3, found: true, scan: true, size: 30, mtime: 300, done: 25, format: "codex"}},
		{"/a/x.jsonl", true, indexedState{id: 1, entry: 1, found: true, size: 10, mtime: 100, done: 10, format: "claude"}},
		{"/z.jsonl", false, indexedState{}},
	}
	var files []string
	for _, c := range cases {
		files = append(files, c.path)
	}
	got := v.states(files)
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q: %+v, want %+v", c.path, got[i], c.want)
		}
	}
}

// TestManifestViewRefusesDamage: a manifest of another layout or with a changed byte is an
// error of the index, which grep says before it reads every file.
func TestManifestViewRefusesDamage(t *testing.T) {
	m := newManifest()
	m.Dirs["/p"] = &Listing{MTime: 5, Names: []string{"a.jsonl"}}
	enc := m.encode()
	flipped := append([]byte(nil), enc...)
	flipped[len(manifestMagic)+3] ^= 1
	m.Schema = schema + 1
	for name, data := range map[string][]byte{"damaged": flipped, "other layout": m.encode(), "empty": nil} {
		var ie *IndexError
		if _, err := newManifestView("index", data); !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an IndexError", name, err)
		}
	}
	if _, err := newManifestView("index", enc); err != nil {
		t.Errorf("intact: %v", err)
	}
}

// TestAbsPaths: paths made absolute as filepath.Abs makes them.
func TestAbsPaths(t *testing.T) {
	in := []string{"a.jsonl", "./b/../c.jsonl", "/x//y.jsonl", ".", "/"}
	got := absPaths(in)
	for i, p := range in {
		want, _ := filepath.Abs(p)
		if got[i] != want {
			t.Errorf("%q: %q, want %q", p, got[i], want)
		}
	}
}

// TestStatter: a stat gives the size and time os.Stat gives, follows links, and names the
// path in its error.
func TestStatter(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte("{}\n{}\n"), 0o644)
	when := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.UTC)
	os.Chtimes(p, when, when)
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(p, link)
	info, _ := os.Stat(p)
	var s statter
	for _, q := range []string{p, link} {
		st, err := s.stat(q)
		if err != nil || st.size != info.Size() || st.mtime != info.ModTime().UnixNano() {
			t.Errorf("%s: %+v %v, want size %d time %d", q, st, err, info.Size(), info.ModTime().UnixNano())
		}
	}
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	dinfo, _ := os.Lstat(dir)
	for _, c := range []struct {
		path  string
		isDir bool
		mtime int64
	}{{dir, true, dinfo.ModTime().UnixNano()}, {link, false, 0}, {p, false, info.ModTime().UnixNano()}, {filepath.Join(dir, "dirlink"), false, 0}} {
		isDir, mtime, err := s.lstat(c.path)
		if err != nil || isDir != c.isDir || c.mtime != 0 && mtime != c.mtime {
			t.Errorf("lstat %s: folder %v time %d %v, want folder %v time %d", c.path, isDir, mtime, err, c.isDir, c.mtime)
		}
	}
	if _, _, err := s.lstat(filepath.Join(dir, "gone")); !os.IsNotExist(err) {
		t.Errorf("lstat of a missing path: %v", err)
	}
	for _, q := range []string{filepath.Join(dir, "gone.jsonl"), p + "\x00x"} {
		_, err := s.stat(q)
		var pe *fs.PathError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "gone.jsonl") && !strings.Contains(err.Error(), "s.jsonl") {
			t.Errorf("%q: %v, want an error naming the path", q, err)
		}
	}
}

// TestWalkerStatsAgreeWithCandidates: the stats grep's walker takes while it walks (of the
// indexed files below each folder given, folders given twice included) give the same answer
// as stats taken by Candidates alone: a grown file and a new one are read, a removed one is
// not found, the others are answered by the index.
func TestWalkerStatsAgreeWithCandidates(t *testing.T) {
	src := t.TempDir()
	line := func(w string) string { return `{"role":"user","content":"` + w + ` reconnect"}` + "\n" }
	paths := map[string]string{"a/1.jsonl": "alpha", "a/c/2.jsonl": "beta", "b/3.jsonl": "gamma", "b/4.jsonl": "quokka", "5.jsonl": "delta"}
	var files []string
	for rel, w := range paths {
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(line(w)), 0o644)
		files = append(files, p)
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, filepath.Join(src, "a/c/2.jsonl"), line("quokka"))
	os.WriteFile(filepath.Join(src, "b/new.jsonl"), []byte(line("quokka")), 0o644)
	os.Remove(filepath.Join(src, "5.jsonl"))
	p, _ := grep.Compile("quokka", true, false)

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := r.Walker()
	var walked []string
	for _, root := range []string{filepath.Join(src, "a"), src} {
		w.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				walked = append(walked, path)
			}
			return nil
		})
	}
	read, _, stale, states := r.Candidates(walked, p)
	took := 0
	for _, s := range r.pre.stated {
		if s {
			took++
		}
	}
	if took != len(paths) { // (the removed one too: the index still has it)
		t.Errorf("the walk stated %d indexed files, want %d", took, len(paths))
	}

	alone, _ := Open(dir)
	defer alone.Close()
	if err := alone.Load(); err != nil {
		t.Fatal(err)
	}
	read2, _, stale2, states2 := alone.Candidates(walked, p)
	if !reflect.DeepEqual(read, read2) || !reflect.DeepEqual(stale, stale2) || !reflect.DeepEqual(states, states2) {
		t.Errorf("with the walk's stats: read %q stale %q %q\nalone: read %q stale %q %q", read, stale, states, read2, stale2, states2)
	}
	want := []string{filepath.Join(src, "a/c/2.jsonl"), filepath.Join(src, "a/c/2.jsonl"), filepath.Join(src, "b/new.jsonl")}
	if !reflect.DeepEqual(stale, want) {
		t.Errorf("read as changed or new: %q, want %q", stale, want)
	}
}

package safewrite

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckOutput(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	in := filepath.Join(dir, "s.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(in, []byte("{}\n"), 0o600)
	os.WriteFile(other, []byte("mine\n"), 0o600)
	os.Symlink(in, filepath.Join(dir, "link.jsonl"))
	os.Link(in, filepath.Join(dir, "hard.jsonl"))
	os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling.jsonl"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	for _, tc := range []struct {
		name, out string
		force     bool
		want      string // in the OutputError; "" for no error
	}{
		{name: "a new file", out: "new.jsonl"},
		{name: "the input itself", out: in, want: "is the input"},
		{name: "the input by another path", out: "./s.jsonl", want: "same file as the input"},
		{name: "the input through a symbolic link", out: "link.jsonl", want: "same file as the input"},
		{name: "the input through a hard link", out: "hard.jsonl", want: "same file as the input"},
		{name: "the input even with force", out: "hard.jsonl", force: true, want: "same file as the input"},
		{name: "a missing folder is named", out: "nowhere/x.jsonl", want: "the folder nowhere does not exist"},
		{name: "a directory", out: "sub", want: "is a directory"},
		{name: "a link to a missing file", out: "dangling.jsonl", want: "symbolic link to a missing file"},
		{name: "a file ctxc did not write", out: "other.jsonl", want: "use --force"},
		{name: "a file ctxc did not write, with force", out: "other.jsonl", force: true},
		{name: "not a regular file", out: os.DevNull, force: true, want: "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckOutput(tc.out, []string{in}, tc.force)
			var oe *OutputError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckOutput(%s) = %v", tc.out, err)
			case tc.want != "" && (!errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) || oe.Path != tc.out):
				t.Fatalf("CheckOutput(%s) = %v, want an OutputError naming it: %q", tc.out, err, tc.want)
			}
		})
	}
}

func TestCheckOutputReplacesOnlyCtxcsOwnUnchangedOutput(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	in, out := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "out.jsonl")
	os.WriteFile(in, []byte("{}\n"), 0o600)
	write := func() {
		t.Helper()
		if err := WriteAtomic(out, func(w io.Writer) error { _, err := io.WriteString(w, "{\"a\":1}\n"); return err }); err != nil {
			t.Fatal(err)
		}
		RecordOutput(out)
	}
	write()
	if err := CheckOutput(out, []string{in}, false); err != nil {
		t.Fatalf("ctxc's own output refused: %v", err)
	}
	write()
	if err := CheckOutput(out, []string{in}, false); err != nil {
		t.Fatalf("ctxc's own output, written again, refused: %v", err)
	}
	// Resumed by its agent: lines were added, it is no longer only ctxc's.
	f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"b\":2}\n")
	f.Close()
	if err := CheckOutput(out, []string{in}, false); err == nil {
		t.Fatal("an output changed since ctxc wrote it may be replaced without --force")
	}
}

func TestCheckApart(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "projects")
	os.MkdirAll(filepath.Join(src, "p"), 0o755)
	os.WriteFile(filepath.Join(src, "p", "s.jsonl"), []byte("{}\n"), 0o600)
	os.Symlink(src, filepath.Join(dir, "link"))
	for _, tc := range []struct {
		name, dest, src, want string
	}{
		{name: "apart", dest: filepath.Join(dir, "backup"), src: src},
		{name: "the folder that holds the source's parent", dest: filepath.Dir(dir), src: filepath.Join(src, "p")},
		{name: "a file's own folder", dest: filepath.Join(src, "p"), src: filepath.Join(src, "p", "s.jsonl")},
		{name: "the source itself", dest: src, src: src, want: "is the source"},
		{name: "inside the source", dest: filepath.Join(src, "archive"), src: src, want: "is inside the source"},
		{name: "inside the source through a link", dest: filepath.Join(dir, "link", "archive"), src: src, want: "is inside the source"},
		{name: "the folder of a source folder", dest: dir, src: src, want: "its archives would be written into"},
		{name: "the folder of a linked source folder", dest: dir, src: filepath.Join(dir, "link"), want: "its archives would be written into"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckApart(tc.dest, []string{tc.src})
			var oe *OutputError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckApart = %v", err)
			case tc.want != "" && (!errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckApart = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWriteAtomicNamesThePath(t *testing.T) {
	dir := t.TempDir()
	err := WriteAtomic(filepath.Join(dir, "nowhere", "x.jsonl"), func(w io.Writer) error { return nil })
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "nowhere", "x.jsonl")) || strings.Contains(err.Error(), ".ctxc-") {
		t.Fatalf("WriteAtomic into a missing folder: %v, want an error naming the file, not a temporary file", err)
	}
	// A symbolic link is followed: the file it names is replaced, the link stays.
	target := filepath.Join(dir, "target.md")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.md")
	os.Symlink(target, link)
	if err := WriteAtomic(link, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target = %q, want new", got)
	}
}

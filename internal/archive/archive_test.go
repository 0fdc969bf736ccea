package archive

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// archiveAll runs one archive of srcs into dest and returns the results.
func archiveAll(t *testing.T, dest string, srcs ...Source) []Result {
	t.Helper()
	a, err := Open(dest, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range a.Prepare(srcs) {
		t.Fatalf("%s: %v", name, err)
	}
	var out []Result
	for _, s := range srcs {
		r, err := a.File(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		out = append(out, r)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := zstd.NewReader(nil)
	defer d.Close()
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return out
}

func mustVerify(t *testing.T, dest string) {
	t.Helper()
	checks, err := Verify(dest)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.OK {
			t.Fatalf("verify %s: %s", c.Archive, c.Message)
		}
	}
}

func completeLines(b []byte) []byte { return b[:bytes.LastIndexByte(b, '\n')+1] }

// TestRoundTrip archives every fixture and every agent-written sample: each archive decodes to
// the session's complete lines byte for byte, and a second run writes nothing.
func TestRoundTrip(t *testing.T) {
	roots := []string{"../../testdata/fixtures"}
	if dirs, _ := filepath.Glob("../../../shared/samples/*"); len(dirs) > 0 {
		roots = append(roots, dirs...)
	} else {
		t.Log("no ../shared/samples: only the fixtures")
	}
	var srcs []Source
	for _, root := range roots {
		files, _ := filepath.Glob(filepath.Join(root, "*.jsonl"))
		for _, f := range files {
			name, err := NameFor(root, f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, Source{f, name})
		}
	}
	if len(srcs) < 5 {
		t.Fatalf("only %d fixtures found", len(srcs))
	}
	dest := t.TempDir()
	archiveAll(t, dest, srcs...)
	before := map[string][]byte{}
	for _, s := range srcs {
		src, _ := os.ReadFile(s.Path)
		p := filepath.Join(dest, s.Name)
		if got := decodeFile(t, p); !bytes.Equal(got, completeLines(src)) {
			t.Errorf("%s: decodes to %d bytes, want %d", s.Path, len(got), len(completeLines(src)))
		}
		before[p], _ = os.ReadFile(p)
	}
	mustVerify(t, dest)
	for _, r := range archiveAll(t, dest, srcs...) {
		if r.Status != StatusUnchanged || r.Bytes != 0 {
			t.Errorf("second run: %s %s %d bytes", r.Source, r.Status, r.Bytes)
		}
	}
	for p, b := range before {
		if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
			t.Errorf("%s changed on a run with nothing new", p)
		}
	}
}

// session writes a session file of n lines and returns its source.
func session(t *testing.T, dir string, lines ...string) Source {
	t.Helper()
	p := filepath.Join(dir, "proj", "s.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := NameFor(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return Source{p, name}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

func TestGrowthAppendsOneFrame(t *testing.T) {
	dir, dest := t.TempDir(), t.TempDir()
	src := session(t, dir, "{\"a\":1}\n", "{\"a\":2}\n")
	archiveAll(t, dest, src)
	zp := filepath.Join(dest, src.Name)
	first, _ := os.ReadFile(zp)
	appendTo(t, src.Path, "{\"a\":3}\n")
	r := archiveAll(t, dest, src)[0]
	if r.Status != StatusGrew || r.Bytes != int64(len("{\"a\":3}\n")) {
		t.Fatalf("%+v, want grew by one line", r)
	}
	now, _ := os.ReadFile(zp)
	if !bytes.HasPrefix(now, first) || int64(len(now)-len(first)) != r.Compressed {
		t.Fatalf("the archive was rewritten, not appended to (%d → %d bytes)", len(first), len(now))
	}
	want, _ := os.ReadFile(src.Path)
	if got := decodeFile(t, zp); !bytes.Equal(got, want) {
		t.Fatalf("decodes to %q, want %q", got, want)
	}
	man, _ := ReadManifest(dest)
	if e := man.Files[src.Name]; e.Frames != 2 || e.Archived != int64(len(want)) {
		t.Fatalf("manifest entry %+v", e)
	}
	mustVerify(t, dest)
}

func TestUnfinishedLineWaits(t *testing.T) {
	dir, dest := t.TempDir(), t.TempDir()
	src := session(t, dir, "{\"a\":1}\n", "{\"a\":")
	r := archiveAll(t, dest, src)[0]
	if r.Status != StatusNew || r.Bytes != 8 || r.Held != 5 {
		t.Fatalf("%+v, want 8 bytes archived and 5 held", r)
	}
	if got := decodeFile(t, filepath.Join(dest, src.Name)); string(got) != "{\"a\":1}\n" {
		t.Fatalf("decodes to %q", got)
	}
	if r := archiveAll(t, dest, src)[0]; r.Status != StatusUnchanged || r.Bytes != 0 {
		t.Fatalf("unfinished line alone: %+v", r)
	}
	appendTo(t, src.Path, "2}\n")
	if r := archiveAll(t, dest, src)[0]; r.Status != StatusGrew || r.Bytes != 8 || r.Held != 0 {
		t.Fatalf("finished line: %+v", r)
	}
	if got := decodeFile(t, filepath.Join(dest, src.Name)); string(got) != "{\"a\":1}\n{\"a\":2}\n" {
		t.Fatalf("decodes to %q", got)
	}
	mustVerify(t, dest)
}

// TestChangedSourceGetsNewVersion: a session that shrank, or was rewritten with the same size,
// is archived anew and the old archive is kept under a new name.
func TestChangedSourceGetsNewVersion(t *testing.T) {
	for name, change := range map[string]string{
		"shrank":    "{\"b\":1}\n",
		"rewritten": "{\"a\":1}\n{\"b\":2}\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir, dest := t.TempDir(), t.TempDir()
			src := session(t, dir, "{\"a\":1}\n", "{\"a\":2}\n")
			archiveAll(t, dest, src)
			old, _ := os.ReadFile(filepath.Join(dest, src.Name))
			os.WriteFile(src.Path, []byte(change), 0o644)
			r := archiveAll(t, dest, src)[0]
			if r.Status != StatusVersion || r.Kept != "dir/proj/s.1.jsonl.zst" && !strings.HasSuffix(r.Kept, "proj/s.1.jsonl.zst") {
				t.Fatalf("%+v, want a new version with the old kept as s.1.jsonl.zst", r)
			}
			if kept, _ := os.ReadFile(filepath.Join(dest, r.Kept)); !bytes.Equal(kept, old) {
				t.Fatal("the old version was not kept byte for byte")
			}
			if got := decodeFile(t, filepath.Join(dest, src.Name)); string(got) != change {
				t.Fatalf("new version decodes to %q, want %q", got, change)
			}
			mustVerify(t, dest)
		})
	}
}

func TestVerifyCatchesFlippedByte(t *testing.T) {
	dir, dest := t.TempDir(), t.TempDir()
	src := session(t, dir, strings.Repeat("{\"text\":\"hello world\"}\n", 200))
	archiveAll(t, dest, src)
	mustVerify(t, dest)
	zp := filepath.Join(dest, src.Name)
	b, _ := os.ReadFile(zp)
	b[len(b)/2] ^= 0x20
	os.WriteFile(zp, b, 0o644)
	checks, err := Verify(dest)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || checks[0].OK || !strings.Contains(checks[0].Message, "differ") {
		t.Fatalf("flipped byte not caught: %+v", checks)
	}
}

// TestInterruptedFrameIsCut: bytes after the recorded frames (a run killed while appending) are
// cut and the run completes; an archive shorter than recorded is kept aside and started anew.
func TestInterruptedFrameIsCut(t *testing.T) {
	dir, dest := t.TempDir(), t.TempDir()
	src := session(t, dir, "{\"a\":1}\n")
	archiveAll(t, dest, src)
	zp := filepath.Join(dest, src.Name)
	appendTo(t, zp, "\x28\xb5\x2f\xfd half a frame")
	appendTo(t, src.Path, "{\"a\":2}\n")
	r := archiveAll(t, dest, src)[0]
	if r.Status != StatusGrew || !strings.Contains(r.Note, "interrupted frame") {
		t.Fatalf("%+v", r)
	}
	want, _ := os.ReadFile(src.Path)
	if got := decodeFile(t, zp); !bytes.Equal(got, want) {
		t.Fatalf("decodes to %q", got)
	}
	mustVerify(t, dest)

	b, _ := os.ReadFile(zp)
	os.WriteFile(zp, b[:len(b)-3], 0o644)
	r = archiveAll(t, dest, src)[0]
	if r.Status != StatusVersion || !r.Warning || r.Kept == "" {
		t.Fatalf("shorter archive: %+v", r)
	}
	if got := decodeFile(t, zp); !bytes.Equal(got, want) {
		t.Fatalf("archived anew: decodes to %q", got)
	}
	mustVerify(t, dest)
}

func TestDryRunWritesNothing(t *testing.T) {
	dir, dest := t.TempDir(), filepath.Join(t.TempDir(), "dest")
	src := session(t, dir, "{\"a\":1}\n")
	a, err := Open(dest, true)
	if err != nil {
		t.Fatal(err)
	}
	a.Prepare([]Source{src})
	r, err := a.File(src)
	if err != nil || r.Status != StatusNew || r.Bytes != 8 {
		t.Fatalf("%+v %v", r, err)
	}
	a.Close()
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Fatal("a dry run created the destination")
	}
}

func TestNameFor(t *testing.T) {
	for _, c := range []struct{ root, file, want string }{
		{"/home/me/.claude/projects", "/home/me/.claude/projects/-p/a.jsonl", "projects/-p/a.jsonl.zst"},
		{"/x/s.jsonl", "/x/s.jsonl", "s.jsonl.zst"},
		// A byte outside UTF-8 is written %XX (the manifest is JSON, an S3 key UTF-8); valid
		// text, "%" included, is kept.
		{"/r\xfe", "/r\xfe/a\xffb%25€.jsonl", "r%FE/a%FFb%25€.jsonl.zst"},
	} {
		if got, err := NameFor(c.root, c.file); err != nil || got != c.want {
			t.Errorf("NameFor(%q, %q) = %q, %v; want %q", c.root, c.file, got, err, c.want)
		}
	}
}

// TestNameOutsideUTF8: a session whose file name is not valid UTF-8 is archived once, found
// unchanged on the next run (its manifest entry names it, where JSON would have turned the byte
// into U+FFFD and every run archived a new version), and verifies.
func TestNameOutsideUTF8(t *testing.T) {
	dir, dest := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "proj", "bad\xffname.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(`{"role":"user","content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := NameFor(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if r := archiveAll(t, dest, Source{p, name})[0]; r.Status != StatusNew {
		t.Fatalf("first run: %+v", r)
	}
	for run := 2; run <= 3; run++ {
		if r := archiveAll(t, dest, Source{p, name})[0]; r.Status != StatusUnchanged {
			t.Fatalf("run %d: %+v", run, r)
		}
	}
	mustVerify(t, dest)
	if got := decodeFile(t, filepath.Join(dest, filepath.FromSlash(name))); string(got) != `{"role":"user","content":"hi"}`+"\n" {
		t.Fatalf("the archive holds %q", got)
	}
}

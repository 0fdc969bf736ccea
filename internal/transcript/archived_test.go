package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/testsessions"
)

// archivedEncodings are the ways an archived session is stored: one frame, frames cut every few
// bytes (inside lines and UTF-8 sequences), and one frame under a plain session's name (found by
// its magic number, not its name).
var archivedEncodings = []struct {
	name, ext string
	frame     int
}{
	{"one frame", ".jsonl.zst", 0},
	{"frames of 97 bytes", ".jsonl.zst", 97},
	{"frames of 64 KiB", ".jsonl.zst", 64 << 10},
	{"named .jsonl", ".jsonl", 0},
}

// writeArchived writes data archived under dir, named name+ext, and returns its path.
func writeArchived(t testing.TB, dir, name, ext string, data []byte, frame int) string {
	t.Helper()
	p := filepath.Join(dir, name+ext)
	if err := os.WriteFile(p, testsessions.Archived(data, frame), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// statsJSON is what `ctxc stats --json` would print of a result, the path left out.
func statsJSON(t testing.TB, res *Result) string {
	t.Helper()
	st := *res.Stats
	st.Path = ""
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// messagesJSON is a load's messages as JSON, for comparison.
func messagesJSON(t testing.TB, msgs []Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkArchivedReads: ScanFile, LoadFile, LoadFileUpTo and Detect of the archived copy give
// what they give of the plain file.
func checkArchivedReads(t *testing.T, plain, archived string, data []byte) {
	t.Helper()
	want, werr := ScanFile(plain, Options{Top: 5})
	got, gerr := ScanFile(archived, Options{Top: 5})
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("ScanFile: plain error %v, archived error %v", werr, gerr)
	}
	if werr == nil && statsJSON(t, got) != statsJSON(t, want) {
		t.Errorf("ScanFile:\n got %s\nwant %s", statsJSON(t, got), statsJSON(t, want))
	}
	for _, upTo := range []int64{-1, int64(len(data) / 2)} {
		_, wm, werr := LoadFileUpTo(plain, upTo, Options{})
		_, gm, gerr := LoadFileUpTo(archived, upTo, Options{})
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("LoadFileUpTo(%d): plain error %v, archived error %v", upTo, werr, gerr)
		}
		if werr == nil && messagesJSON(t, gm) != messagesJSON(t, wm) {
			t.Errorf("LoadFileUpTo(%d): the archived session's messages differ from the plain file's", upTo)
		}
	}
	f, err := OpenFile(archived)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wf, werr := Detect(bytes.NewReader(data), plain, Options{})
	gf, gerr := Detect(f, archived, Options{})
	if wf != gf || (werr == nil) != (gerr == nil) {
		t.Errorf("Detect: %q %v, want %q %v", gf, gerr, wf, werr)
	}
}

// TestArchivedSessionsReadAsPlain: every fixture, generated session of each agent and a session
// large enough for the ranges reader, archived in one frame or many, reads as the plain file.
func TestArchivedSessionsReadAsPlain(t *testing.T) {
	sessions := map[string][]byte{}
	files, _ := filepath.Glob("../../testdata/fixtures/*.jsonl")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sessions[strings.TrimSuffix(filepath.Base(p), ".jsonl")] = data
	}
	for name, s := range testsessions.Agent() {
		sessions["generated-"+name] = []byte(s)
	}
	sessions["ranges-sized"] = []byte(testsessions.OpenAI(minRangesFile / 1200))
	if len(sessions["ranges-sized"]) < minRangesFile {
		t.Fatalf("the large session has %d bytes, under the ranges reader's %d", len(sessions["ranges-sized"]), minRangesFile)
	}
	sessions["empty"] = nil
	for name, data := range sessions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			plain := filepath.Join(dir, "plain.jsonl")
			os.WriteFile(plain, data, 0o644)
			for _, enc := range archivedEncodings {
				if enc.frame == 97 && len(data) > 1<<20 {
					continue // ten thousand frames of a large file: the small fixtures cover it
				}
				t.Run(enc.name, func(t *testing.T) {
					checkArchivedReads(t, plain, writeArchived(t, dir, "archived", enc.ext, data, enc.frame), data)
				})
			}
		})
	}
}

// TestArchivedSamples: the real sessions of ../shared/samples, archived, read as the plain files.
func TestArchivedSamples(t *testing.T) {
	samples, _ := filepath.Glob(filepath.Join(samplesDir, "*", "*.jsonl"))
	if len(samples) == 0 {
		t.Skip("no samples at", samplesDir)
	}
	for _, p := range samples {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkArchivedReads(t, p, writeArchived(t, t.TempDir(), "s", ".jsonl.zst", data, 1<<20), data)
		})
	}
}

// TestIsCompressed: the magic number decides, not the name.
func TestIsCompressed(t *testing.T) {
	dir := t.TempDir()
	session := []byte(`{"role":"user","content":"hi"}` + "\n")
	plainNamedZst := filepath.Join(dir, "plain.jsonl.zst")
	os.WriteFile(plainNamedZst, session, 0o644)
	empty := filepath.Join(dir, "empty.jsonl.zst")
	os.WriteFile(empty, nil, 0o644)
	short := filepath.Join(dir, "short.jsonl.zst")
	os.WriteFile(short, zstdMagic[:3], 0o644)
	for _, tc := range []struct {
		path string
		want bool
	}{
		{writeArchived(t, dir, "a", ".jsonl.zst", session, 0), true},
		{writeArchived(t, dir, "b", ".jsonl", session, 0), true},
		{plainNamedZst, false},
		{empty, false},
		{short, false},
		{dir, false},
		{filepath.Join(dir, "missing.jsonl.zst"), false},
	} {
		if got := IsCompressed(tc.path); got != tc.want {
			t.Errorf("IsCompressed(%s) = %v, want %v", filepath.Base(tc.path), got, tc.want)
		}
	}
}

// TestArchivedFileReads: Read, Rewind, Section and ReaderAt give the session's text.
func TestArchivedFileReads(t *testing.T) {
	data := []byte(testsessions.Agent()["codex"])
	p := writeArchived(t, t.TempDir(), "s", ".jsonl.zst", data, 1000)
	f, err := OpenFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.Compressed() || f.Plain() != nil {
		t.Fatalf("Compressed %v, Plain %v: want an archived file", f.Compressed(), f.Plain())
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, data[:100]) {
		t.Fatalf("Read: %q %v", head, err)
	}
	if err := f.Rewind(); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(f); err != nil || !bytes.Equal(all, data) {
		t.Fatalf("Read after Rewind: %d bytes, %v; want %d bytes", len(all), err, len(data))
	}
	for _, span := range [][2]int64{{0, 10}, {999, 1003}, {int64(len(data)) - 50, 50}} {
		r, err := f.Section(span[0], span[1])
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if want := data[span[0] : span[0]+span[1]]; err != nil || !bytes.Equal(got, want) {
			t.Errorf("Section(%d, %d) = %q, %v; want %q", span[0], span[1], got, err, want)
		}
	}
	ra, size, err := f.ReaderAt()
	if err != nil || size != int64(len(data)) {
		t.Fatalf("ReaderAt: size %d, %v; want %d", size, err, len(data))
	}
	mid := make([]byte, 40)
	if _, err := ra.ReadAt(mid, 5000); err != nil || !bytes.Equal(mid, data[5000:5040]) {
		t.Errorf("ReadAt: %q %v", mid, err)
	}
}

// TestDecompressedStream: standard input is read decompressed when it is zstd, as it is
// otherwise.
func TestDecompressedStream(t *testing.T) {
	data := []byte(testsessions.Agent()["pi"])
	for name, in := range map[string][]byte{"plain": data, "zstd": testsessions.Archived(data, 4096)} {
		r, done, err := Decompressed(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		done()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v; want the session's %d", name, len(got), err, len(data))
		}
	}
}

// TestArchivedDamage: a damaged or truncated archive is an error naming the file, never a
// partial result read as the whole session.
func TestArchivedDamage(t *testing.T) {
	data := []byte(testsessions.Agent()["claude-code"])
	arch := testsessions.Archived(data, 0)
	dir := t.TempDir()
	flipped := append([]byte(nil), arch...)
	flipped[len(flipped)/2] ^= 0xFF
	cases := map[string][]byte{
		"flipped byte": flipped,
		"cut short":    arch[:len(arch)-100],
	}
	for name, b := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl.zst")
		os.WriteFile(p, b, 0o644)
		if _, err := ScanFile(p, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: ScanFile error %v, want one naming %s", name, err, p)
		}
		if _, _, err := LoadFile(p, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: LoadFile error %v, want one naming %s", name, err, p)
		}
	}
}

// TestArchivedSpill: an archived session too large to hold in memory is read at offsets from a
// temporary file, with the same results, and the file is gone once the session is closed.
func TestArchivedSpill(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	defer func(n int64) { spillSize = n }(spillSize)
	spillSize = 1000
	sessions := testsessions.Agent()
	sessions["ranges-sized"] = testsessions.OpenAI(minRangesFile / 1200)
	for name, s := range sessions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			plain := filepath.Join(dir, "plain.jsonl")
			os.WriteFile(plain, []byte(s), 0o644)
			checkArchivedReads(t, plain, writeArchived(t, dir, "archived", ".jsonl.zst", []byte(s), 4096), []byte(s))
		})
	}
	data := []byte(sessions["codex"])
	f, err := OpenFile(writeArchived(t, t.TempDir(), "s", ".jsonl.zst", data, 0))
	if err != nil {
		t.Fatal(err)
	}
	ra, size, err := f.ReaderAt()
	if err != nil || f.tmp == nil || size != int64(len(data)) {
		t.Fatalf("ReaderAt: size %d, %v, temporary file %v; want %d bytes in a temporary file", size, err, f.tmp, len(data))
	}
	got := make([]byte, 100)
	if _, err := ra.ReadAt(got, 3000); err != nil || !bytes.Equal(got, data[3000:3100]) {
		t.Errorf("ReadAt: %q %v", got, err)
	}
	f.Close()
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

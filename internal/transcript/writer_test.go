package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
)

// sourceOf opens path as OpenSource does, without a load (LastRecord needs none).
func sourceOf(t *testing.T, path string) *Source {
	t.Helper()
	file, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, n, err := file.ReaderAt()
	if err != nil {
		t.Fatal(err)
	}
	return conv.NewSource(path, file, f, n, nil)
}

// TestLastRecord: the newest valid record, whatever follows it (blank lines, a cut line), a
// record without its newline included, and a line much longer than the read chunk; of a plain
// file and of an archived one.
func TestLastRecord(t *testing.T) {
	long := `{"id":"` + strings.Repeat("x", 300<<10) + `"}`
	for _, tc := range []struct{ data, want string }{
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}\n", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}\n\n  \n{\"id\":\"c", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n" + long + "\n", long},
		{long + "\n{\"id\":", long},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.jsonl")
		os.WriteFile(p, []byte(tc.data), 0o644)
		for _, path := range []string{p, writeArchived(t, dir, "f", ".jsonl.zst", []byte(tc.data), 1000)} {
			s := sourceOf(t, path)
			got, err := s.LastRecord()
			s.Close()
			if err != nil || string(got) != tc.want {
				t.Errorf("%s %.40q: got %.40q %v, want %.40q", filepath.Base(path), tc.data, got, err, tc.want)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(p, []byte("not json\n\n"), 0o644)
	s := sourceOf(t, p)
	defer s.Close()
	if _, err := s.LastRecord(); err == nil {
		t.Error("no record: want an error")
	}
}

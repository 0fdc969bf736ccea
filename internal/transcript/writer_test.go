package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLastRecord: the newest valid record, whatever follows it (blank lines, a cut line), a
// record without its newline included, and a line much longer than the read chunk.
func TestLastRecord(t *testing.T) {
	long := `{"id":"` + strings.Repeat("x", 300<<10) + `"}`
	for _, tc := range []struct{ data, want string }{
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}\n", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}\n\n  \n{\"id\":\"c", `{"id":"b"}`},
		{"{\"id\":\"a\"}\n" + long + "\n", long},
		{long + "\n{\"id\":", long},
	} {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(p, []byte(tc.data), 0o644)
		f, _ := os.Open(p)
		s := &Source{Path: p, f: f}
		got, err := s.LastRecord()
		f.Close()
		if err != nil || string(got) != tc.want {
			t.Errorf("%.40q: got %.40q %v, want %.40q", tc.data, got, err, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "f.jsonl")
	os.WriteFile(p, []byte("not json\n\n"), 0o644)
	f, _ := os.Open(p)
	defer f.Close()
	if _, err := (&Source{Path: p, f: f}).LastRecord(); err == nil {
		t.Error("no record: want an error")
	}
}

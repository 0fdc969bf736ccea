package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/grep"

	"github.com/klauspost/compress/zstd"
)

func appendFrame(t *testing.T, path, data string) {
	t.Helper()
	enc, _ := zstd.NewWriter(nil)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(enc.EncodeAll([]byte(data), nil))
	f.Close()
}

// TestArchivedSessions: an archived session (.jsonl.zst, frames appended by each archive run)
// is indexed from its decompressed lines; a new frame is read as an append; snippets are read
// back from the decompressed line.
func TestArchivedSessions(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl.zst")
	appendFrame(t, p, `{"role":"user","content":"the reconnect loop"}`+"\n"+`{"role":"assistant","content":"fixed it"}`+"\n")
	dir := filepath.Join(t.TempDir(), "index")
	st, err := Update(dir, []string{p}, nil, UpdateOptions{})
	if err != nil || st.Indexed != 1 || st.Messages != 2 {
		t.Fatalf("first: %+v %v", st, err)
	}
	grown := `{"role":"user","content":"now the kubernetes deploy"}` + "\n"
	appendFrame(t, p, grown)
	st, err = Update(dir, []string{p}, nil, UpdateOptions{})
	if err != nil || st.Appended != 1 || st.Messages != 1 || st.Bytes != int64(len(grown)) {
		t.Fatalf("grown: %+v %v", st, err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := r.Search(Query{Text: "kubernetes", Limit: 3})
	r.Complete(res, "kubernetes")
	if len(res) != 1 || res[0].Line != 3 || res[0].Snippet != "now the kubernetes deploy" {
		t.Fatalf("search: %+v", res)
	}
	if read, _, _, _ := r.Candidates([]string{p}, mustCompile(t, "reconnect")); len(read) != 1 {
		t.Errorf("candidates for a word in it: %v", read)
	}
	if read, _, _, _ := r.Candidates([]string{p}, mustCompile(t, "absentword")); len(read) != 0 {
		t.Errorf("candidates for a word not in it: %v", read)
	}
}

func mustCompile(t *testing.T, pattern string) *grep.Pattern {
	t.Helper()
	p, err := grep.Compile(pattern, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/grep"
)

// TestMain doubles as the child process that TestUpdateSurvivesKill kills mid-update.
func TestMain(m *testing.M) {
	if dir := os.Getenv("CTXC_TEST_INDEX_CHILD"); dir != "" {
		src := os.Getenv("CTXC_TEST_INDEX_SRC")
		files, _ := filepath.Glob(filepath.Join(src, "*.jsonl"))
		if _, err := Update(dir, files, []string{src}, UpdateOptions{Jobs: 2}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var archiveWords = strings.Fields("parser lexer token tree build test deploy migration schema quokka zebra error retry cache index kernel")

// genArchive writes n sessions of every format: the fixtures (compacted ones among them), with
// random words put into their texts, and OpenAI sessions of random words, some of them
// written with JSON escapes of plain characters.
func genArchive(t testing.TB, dir string, n int) []string {
	t.Helper()
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	r := rand.New(rand.NewSource(7))
	word := func() string { return archiveWords[r.Intn(len(archiveWords))] }
	var files []string
	for i := 0; i < n; i++ {
		var content string
		if i%2 == 0 && len(fixtures) > 0 {
			b, err := os.ReadFile(fixtures[(i/2)%len(fixtures)])
			if err != nil {
				t.Fatal(err)
			}
			content = strings.ReplaceAll(string(b), "x x x", word()+" "+word()+" "+word())
		} else {
			var b strings.Builder
			for k := 0; k < 20; k++ {
				fmt.Fprintf(&b, `{"role":"user","content":"please %s the %s with %s"}`+"\n", word(), word(), word())
				fmt.Fprintf(&b, `{"role":"assistant","content":"I will %s; then %s \u003c%s\u003e, na\u00efve \"q\""}`+"\n", word(), word(), word())
			}
			if i%7 == 1 { // "quokka" spelled with an escape: only the escape mask finds it
				fmt.Fprintf(&b, `{"role":"user","content":"the qu\u006fkka escaped"}`+"\n")
			}
			content = b.String()
		}
		p := filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

func hitKeys(hs []grep.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%d %s #%d cov=%d span=%v %q", filepath.Base(h.Path), h.Line, h.Role, h.Index, h.CoveredBy, h.Span, h.Snippet.Text))
	}
	return out
}

func scanAll(t *testing.T, files []string, p *grep.Pattern, opts grep.Options) []string {
	t.Helper()
	var hits []grep.Hit
	for _, f := range files {
		if err := grep.File(f, p, opts, func(h grep.Hit) error { hits = append(hits, h); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return hitKeys(hits)
}

var indexPatterns = []struct {
	p           string
	fixed, fold bool
}{{"quokka", true, false}, {"ZEBRA", true, true}, {`de(ploy|bug) \w+`, false, false}, {"<cache>", true, false},
	{"main.go", true, false}, {"naïve", false, false}, {`"q"`, true, false}, {"quokka zebra", true, true}, {"x", true, false},
	{"the following", true, true}, {"prefix of this conversation", true, false}}

// agree checks that grep over the files the index picks, reading only the parts of them it
// names, gives a scan's hits, for every pattern and several options; it returns how many files
// the index let grep skip.
func agree(t *testing.T, dir string, files []string, stage string) int {
	t.Helper()
	skipped, _ := agreeOn(t, dir, files, stage, indexPatterns)
	return skipped
}

// agreeOn is agree for patterns; it also returns how many candidate files grep read only in
// part (their parts shorter than the file).
func agreeOn(t *testing.T, dir string, files []string, stage string, patterns []struct {
	p           string
	fixed, fold bool
}) (skipped, partial int) {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	total := 0
	for _, pt := range patterns {
		p, err := grep.Compile(pt.p, pt.fixed, pt.fold)
		if err != nil {
			t.Fatal(err)
		}
		read, parts, _, _ := r.Candidates(files, p)
		if len(parts) != len(read) {
			t.Fatalf("%s: %q: %d files to read, %d parts", stage, pt.p, len(read), len(parts))
		}
		skipped += len(files) - len(read)
		partial += partlyRead(t, read, parts)
		for _, opts := range []grep.Options{{Indexed: true}, {}, {Roles: map[string]bool{"assistant": true}}, {Around: 1}} {
			want := scanAll(t, files, p, opts)
			if got := searchParts(t, read, parts, p, opts); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q %+v: %d hits through the index, %d by a scan\nindex: %.5v\nscan:  %.5v", stage, pt.p, opts, len(got), len(want), got, want)
			}
			total += len(want)
		}
	}
	if total == 0 {
		t.Fatalf("%s: no hits at all", stage)
	}
	return skipped, partial
}

// searchParts searches files as grep --index does: each file's parts only (all of it when it
// has none).
func searchParts(t *testing.T, files []string, parts []grep.Ranges, p *grep.Pattern, opts grep.Options) []string {
	t.Helper()
	var hits []grep.Hit
	for i, f := range files {
		if err := grep.FileRanges(f, p, opts, parts[i], func(h grep.Hit) error { hits = append(hits, h); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return hitKeys(hits)
}

// partlyRead counts the files whose parts leave some of their bytes unread.
func partlyRead(t *testing.T, files []string, parts []grep.Ranges) int {
	t.Helper()
	n := 0
	for i, rs := range parts {
		if len(rs.Parts) == 0 {
			continue
		}
		info, err := os.Stat(files[i])
		if err != nil {
			t.Fatal(err)
		}
		var bytes int64
		for _, r := range rs.Parts {
			bytes += r.To - r.From
		}
		if rs.Size != info.Size() || bytes > info.Size() {
			t.Errorf("%s: parts %+v of a file of %d bytes", files[i], rs, info.Size())
		}
		if bytes < info.Size() {
			n++
		}
	}
	return n
}

// TestCandidatesAgreeWithScan: on a generated archive of every format, grep over the files the
// index picks gives exactly the hits of a scan (files, lines, roles, message indexes, covering
// compactions, snippets, context), before and after files grow, are rewritten, appear and go;
// and the index does let grep skip files.
func TestCandidatesAgreeWithScan(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 60)
	dir := filepath.Join(t.TempDir(), "index")
	st, err := Update(dir, files, []string{src}, UpdateOptions{Warn: func(err error) { t.Error(err) }})
	if err != nil || st.Indexed != len(files) || st.Messages == 0 {
		t.Fatalf("update: %+v %v", st, err)
	}
	if skipped := agree(t, dir, files, "fresh"); skipped == 0 {
		t.Fatal("the index picked every file for every pattern")
	}
	if st, _ := Update(dir, files, []string{src}, UpdateOptions{}); st.Unchanged != len(files) || st.Bytes != 0 {
		t.Errorf("second update read files again: %+v", st)
	}

	// A file grows and another is rewritten shorter: both are read until the next update.
	appendLine(t, files[1], `{"role":"user","content":"quokka after indexing"}`)
	os.WriteFile(files[3], []byte(`{"role":"user","content":"zebra only"}`+"\n"), 0o644)
	extra := filepath.Join(src, "new.jsonl")
	os.WriteFile(extra, []byte(`{"role":"user","content":"quokka new"}`+"\n"), 0o644)
	files = append(files, extra)
	r, _ := Open(dir)
	quokka, _ := grep.Compile("quokka", true, false)
	_, _, stale, _ := r.Candidates(files, quokka)
	r.Close()
	if !reflect.DeepEqual(stale, []string{files[1], files[3], extra}) {
		t.Errorf("files read as changed or new: %v", stale)
	}
	agree(t, dir, files, "stale")

	os.Remove(files[5])
	files = append(files[:5:5], files[6:]...)
	st, err = Update(dir, files, []string{src}, UpdateOptions{})
	if err != nil || st.Appended != 1 || st.Indexed != 2 {
		t.Errorf("update after changes: %+v %v", st, err)
	}
	agree(t, dir, files, "updated")
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line + "\n")
	f.Close()
}

// TestUpdateReadsOnlyAppends: a session that grew is read from where the index stopped, its
// old documents kept; one rewritten in place (same size) is read whole under a new id, and its
// old documents are no longer found; a line still being written is left for the next update.
func TestUpdateReadsOnlyAppends(t *testing.T) {
	src := t.TempDir()
	p := filepath.Join(src, "s.jsonl")
	first := `{"role":"user","content":"alpha reconnect"}` + "\n"
	os.WriteFile(p, []byte(first), 0o644)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, []string{p}, nil, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	grown := `{"role":"assistant","content":"beta websocket"}` + "\n"
	partial := `{"role":"user","content":"gamma`
	appendRaw(t, p, grown+partial)
	st, err := Update(dir, []string{p}, nil, UpdateOptions{})
	if err != nil || st.Appended != 1 || st.Bytes != int64(len(grown)) || st.Messages != 1 {
		t.Fatalf("append: %+v %v", st, err)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Files[p]
	r, _ := Open(dir)
	if e.Done != int64(len(first)+len(grown)) || e.Lines != 2 {
		t.Errorf("indexed up to %d (%d lines), want %d (2)", e.Done, e.Lines, len(first)+len(grown))
	}
	for _, q := range []string{"alpha", "websocket"} {
		if res := r.Search(Query{Text: q, Limit: 5}); len(res) != 1 {
			t.Errorf("%q: %v", q, res)
		}
	}
	if res := r.Search(Query{Text: "gamma", Limit: 5}); len(res) != 0 {
		t.Errorf("a line still being written was indexed: %v", res)
	}
	r.Close()
	// Completed, then rewritten with the same length: read whole, the old words gone.
	appendRaw(t, p, `"}`+"\n")
	if st, _ := Update(dir, []string{p}, nil, UpdateOptions{}); st.Appended != 1 || st.Messages != 1 {
		t.Errorf("completed line: %+v", st)
	}
	b, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(b), "alpha", "omega", 1)), 0o644)
	if st, _ := Update(dir, []string{p}, nil, UpdateOptions{}); st.Indexed != 1 || st.Messages != 3 {
		t.Errorf("rewritten: %+v", st)
	}
	r, _ = Open(dir)
	defer r.Close()
	if res := r.Search(Query{Text: "alpha", Limit: 5}); len(res) != 0 {
		t.Errorf("the rewritten file's old text is still found: %v", res)
	}
	if res := r.Search(Query{Text: "omega", Limit: 5}); len(res) != 1 {
		t.Errorf("omega: %v", res)
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

// TestDamagedIndexIsSaid: a damaged segment or manifest is an IndexError, not a crash, and
// an older index (a file where the folder should be) is named as such.
func TestDamagedIndexIsSaid(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 6)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, nil, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.idx"))
	if len(segs) == 0 {
		t.Fatal("no segment written")
	}
	b, _ := os.ReadFile(segs[0])
	os.WriteFile(segs[0], b[:len(b)/2], 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged segment: %v", err)
	}
	os.WriteFile(filepath.Join(dir, manifestName), []byte("{not json"), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), manifestName) {
		t.Errorf("damaged manifest: %v", err)
	}
	old := filepath.Join(t.TempDir(), "index.db")
	os.WriteFile(old, []byte("SQLite format 3\x00"), 0o644)
	if _, err := Open(old); err == nil || !strings.Contains(err.Error(), "older ctxc") {
		t.Errorf("older index: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "ctxc index builds it") {
		t.Errorf("missing index: %v", err)
	}
}

// TestOlderLayoutIsRebuilt: the index of an older ctxc (a JSON manifest and segments of
// another layout) is named as such by a query, and the next update rebuilds it in place,
// removing the older files.
func TestOlderLayoutIsRebuilt(t *testing.T) {
	src := t.TempDir()
	files := genArchive(t, src, 4)
	dir := filepath.Join(t.TempDir(), "index")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, legacyManifest), []byte(`{"schema":2,"segments":[{"name":"seg-000000.idx"}],"files":{}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "seg-000000.idx"), []byte("CTXCSEG1 an older segment"), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "older ctxc") {
		t.Fatalf("older layout: %v", err)
	}
	st, err := Update(dir, files, nil, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != len(files) {
		t.Errorf("rebuild read %d files, want %d", st.Files, len(files))
	}
	if _, err := os.Stat(filepath.Join(dir, legacyManifest)); !os.IsNotExist(err) {
		t.Errorf("the older manifest is still there (%v)", err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != len(files) {
		t.Errorf("rebuilt index has %d files, want %d", len(m.Files), len(files))
	}
}

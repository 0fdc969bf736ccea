package grep

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestMain doubles as the child process that TestIndexSurvivesKill kills mid-update.
func TestMain(m *testing.M) {
	if db := os.Getenv("CTXC_TEST_INDEX_CHILD"); db != "" {
		ix, err := OpenIndex(db, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		dir := os.Getenv("CTXC_TEST_INDEX_DIR")
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if _, err := ix.Update(files, []string{dir}, transcript.FormatUnknown, func(error) {}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var archiveWords = strings.Fields("parser lexer token tree build test deploy migration schema quokka zebra error retry cache index kernel")

// genArchive writes n sessions of every format: the fixtures (compacted ones among them), with
// random words put into their texts, and OpenAI sessions of random words.
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

func hitKeys(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s:%d %s #%d cov=%d span=%v %q", filepath.Base(h.Path), h.Line, h.Role, h.Index, h.CoveredBy, h.Span, h.Snippet.Text))
	}
	return out
}

func scanAll(t *testing.T, files []string, p *Pattern, opts Options) []Hit {
	var hits []Hit
	for _, f := range files {
		if err := File(f, p, opts, func(h Hit) error { hits = append(hits, h); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return hits
}

func searchAll(t *testing.T, ix *Index, files []string, p *Pattern, opts Options) ([]Hit, []string) {
	var hits []Hit
	scan, _, err := ix.Search(files, p, opts, func(h Hit) error { hits = append(hits, h); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// What the index cannot answer for is read, as grep --index does.
	hits = append(hits, scanAll(t, scan, p, opts)...)
	return hits, scan
}

var indexPatterns = []struct {
	p           string
	fixed, fold bool
}{{"quokka", true, false}, {"ZEBRA", true, true}, {`de(ploy|bug) \w+`, false, false}, {"<cache>", true, false}, {"main.go", true, false}, {"naïve", false, false}, {`"q"`, true, false}}

func sortByPath(hs []Hit) []Hit {
	out := append([]Hit(nil), hs...)
	// stable by path: index answers and scans may interleave files differently
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Path < out[j-1].Path; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestIndexAgreesWithScan: on a generated archive, the index gives the same hits (files,
// lines, roles, message indexes, covering compactions, snippets) as reading the files; a file
// that changed or is new is read instead, never answered with old lines; a corrupt index is said.
func TestIndexAgreesWithScan(t *testing.T) {
	dir := t.TempDir()
	files := genArchive(t, filepath.Join(dir), 120)
	db := filepath.Join(t.TempDir(), "index.db")
	ix, err := OpenIndex(db, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Update(files, []string{dir}, transcript.FormatUnknown, func(err error) { t.Error(err) })
	if err != nil || st.Indexed != len(files) || st.Messages == 0 {
		t.Fatalf("update: %+v %v", st, err)
	}
	compare := func(stage string) {
		t.Helper()
		total := 0
		for _, pt := range indexPatterns {
			p, _ := Compile(pt.p, pt.fixed, pt.fold)
			variants := []Options{{Indexed: true}}
			if stage == "fresh" {
				variants = append(variants, Options{}, Options{Roles: map[string]bool{"assistant": true}})
			}
			for _, opts := range variants {
				want := hitKeys(sortByPath(scanAll(t, files, p, opts)))
				got, _ := searchAll(t, ix, files, p, opts)
				if g := hitKeys(sortByPath(got)); !reflect.DeepEqual(g, want) {
					t.Fatalf("%s: %q %+v: index %d hits, scan %d\nindex: %v\nscan:  %v", stage, pt.p, opts, len(g), len(want), first(g), first(want))
				}
				total += len(want)
			}
		}
		if total == 0 {
			t.Fatalf("%s: no hits at all", stage)
		}
	}
	compare("fresh")
	if st, _ := ix.Update(files, []string{dir}, transcript.FormatUnknown, func(err error) { t.Error(err) }); st.Unchanged != len(files) || st.Indexed != 0 {
		t.Errorf("second update read files again: %+v", st)
	}

	// A file grows (new lines; its old lines keep their numbers) and another is rewritten
	// shorter: both are read, not answered from the index.
	f, _ := os.OpenFile(files[1], os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"user","content":"quokka after indexing"}` + "\n")
	f.Close()
	os.WriteFile(files[3], []byte(`{"role":"user","content":"zebra only"}`+"\n"), 0o644)
	p, _ := Compile("quokka", true, false)
	_, scan := searchAll(t, ix, files, p, Options{})
	if !reflect.DeepEqual(scan, []string{files[1], files[3]}) {
		t.Errorf("stale files read: %v", scan)
	}
	compare("stale")
	// New file: not indexed, read.
	extra := filepath.Join(dir, "new.jsonl")
	os.WriteFile(extra, []byte(`{"role":"user","content":"quokka new"}`+"\n"), 0o644)
	files = append(files, extra)
	compare("new file")
	// Removed file: forgotten by the next update.
	os.Remove(files[5])
	files = append(files[:5], files[6:]...)
	if st, _ := ix.Update(files, []string{dir}, transcript.FormatUnknown, func(err error) { t.Error(err) }); st.Removed != 1 || st.Indexed != 3 {
		t.Errorf("update after changes: %+v", st)
	}
	compare("updated")

	// A corrupt index is said, not used.
	ix.Close()
	os.WriteFile(db, []byte("this is not a database, it was overwritten"), 0o644)
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	if _, err := OpenIndex(db, false); err == nil {
		t.Error("corrupt index opened")
	} else if _, ok := err.(*IndexError); !ok {
		t.Errorf("corrupt index: %T %v", err, err)
	}
	if _, err := OpenIndex(filepath.Join(dir, "missing.db"), false); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing index: %v", err)
	}
}

func first(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

// TestIndexSurvivesKill: an update killed with SIGKILL at random moments leaves an index that
// opens, passes SQLite's integrity check, and answers exactly as a scan (files it had not
// finished are not indexed yet, and read).
func TestIndexSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	files := genArchive(t, dir, 150)
	db := filepath.Join(t.TempDir(), "index.db")
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	child := func(db string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CTXC_TEST_INDEX_CHILD="+db, "CTXC_TEST_INDEX_DIR="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// How long a whole first update takes here, so that kills fall inside one (a fixed delay
	// missed it on a fast machine: every update had finished).
	start := time.Now()
	if err := child(filepath.Join(t.TempDir(), "timing.db")).Wait(); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	killed, partial := 0, 0
	for trial := 0; trial < 6 || (partial == 0 && trial < 16); trial++ {
		// Until one was killed midway, each trial starts from no index.
		fresh := partial == 0
		if fresh {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
		}
		cmd := child(db)
		time.Sleep(whole/10 + time.Duration(r.Int63n(int64(whole*8/10)+1)))
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()
		// Touch a few files between runs so that updates rewrite files already indexed.
		for k := 0; k < 25; k++ {
			p := files[r.Intn(len(files))]
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			fmt.Fprintf(f, `{"role":"user","content":"quokka round %d"}`+"\n", trial)
			f.Close()
		}
		ix, err := OpenIndex(db, false)
		if err != nil {
			var ie *IndexError
			if fresh && asIndexError(err, &ie) && strings.Contains(err.Error(), "missing") {
				continue // killed before it created the file
			}
			t.Fatalf("trial %d: %v", trial, err)
		}
		var n int
		ix.db.QueryRow(`SELECT count(*) FROM files`).Scan(&n)
		if n < len(files) {
			partial++
		}
		t.Logf("trial %d: %d of %d files indexed when killed", trial, n, len(files))
		var check string
		if err := ix.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("trial %d: integrity %q %v", trial, check, err)
		}
		p, _ := Compile("quokka", true, false)
		want := hitKeys(sortByPath(scanAll(t, files, p, Options{Indexed: true})))
		got, _ := searchAll(t, ix, files, p, Options{Indexed: true})
		if g := hitKeys(sortByPath(got)); !reflect.DeepEqual(g, want) {
			t.Fatalf("trial %d: index and scan differ: %d vs %d hits", trial, len(g), len(want))
		}
		ix.Close()
	}
	if killed == 0 || partial == 0 {
		t.Fatalf("no update was killed midway (%d killed, %d partial)", killed, partial)
	}
}

func asIndexError(err error, target **IndexError) bool {
	ie, ok := err.(*IndexError)
	if ok {
		*target = ie
	}
	return ok
}

// TestIndexPiecesAgreeWithScan: texts longer than a piece (cut small here, so that matches and
// snippets fall across the edges of pieces, and the whole text must often be read) give the
// same hits as reading the files, for fixed strings, regexps of bounded and unbounded length,
// assertions and case folding.
func TestIndexPiecesAgreeWithScan(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(11))
	words := append(append([]string(nil), archiveWords...), "naïve", "café", "\u212aelvin", "ПАРСЕР", "quokka-zebra", `\"q\"`, `\n`)
	var files []string
	for i := 0; i < 30; i++ {
		var b strings.Builder
		for k := 0; k < 6; k++ {
			n := r.Intn(1500)
			var text strings.Builder
			for w := 0; w < n; w++ {
				text.WriteString(words[r.Intn(len(words))])
				text.WriteByte(" \n"[r.Intn(2)&r.Intn(2)])
			}
			role := []string{"user", "assistant"}[k%2]
			fmt.Fprintf(&b, `{"role":%q,"content":"%s"}`+"\n", role, strings.ReplaceAll(text.String(), "\n", `\n`))
		}
		p := filepath.Join(dir, fmt.Sprintf("long%02d.jsonl", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	patterns := []struct {
		p           string
		fixed, fold bool
	}{
		{"quokka zebra", true, false}, {"kelvin", true, true}, {"naïve café", true, false},
		{`parser\s+lexer`, false, false}, {`\bcache\b`, false, false}, {`quokka.*kernel`, false, false},
		{`(retry|cache) ПАРСЕР`, false, true}, {`"q" index`, true, false}, {`de(ploy|bug) [a-z]{2,5} test`, false, false},
	}
	for _, sz := range []pieceSizes{{own: 64, before: 100, after: 200}, {own: 40, before: 33, after: 33}, defaultPieces} {
		db := filepath.Join(t.TempDir(), "index.db")
		ix, err := OpenIndex(db, true)
		if err != nil {
			t.Fatal(err)
		}
		ix.piece = sz
		if _, err := ix.Update(files, []string{dir}, transcript.FormatUnknown, func(err error) { t.Error(err) }); err != nil {
			t.Fatal(err)
		}
		var pieces int
		ix.db.QueryRow(`SELECT count(*) FROM msgs`).Scan(&pieces)
		total := 0
		for _, pt := range patterns {
			p, err := Compile(pt.p, pt.fixed, pt.fold)
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{Indexed: true}, {Roles: map[string]bool{"assistant": true}}} {
				want := hitKeys(scanAll(t, files, p, opts))
				got, scan := searchAll(t, ix, files, p, opts)
				if len(scan) != 0 {
					t.Fatalf("%+v: files read instead: %v", sz, scan)
				}
				if g := hitKeys(got); !reflect.DeepEqual(g, want) {
					t.Fatalf("pieces %+v, %q %+v: index %d hits, scan %d\nindex: %v\nscan:  %v", sz, pt.p, opts, len(g), len(want), first(g), first(want))
				}
				total += len(want)
			}
		}
		if total == 0 || (sz.own < 100 && pieces < 1000) {
			t.Fatalf("%+v: %d hits, %d pieces: the test does not test", sz, total, pieces)
		}
		ix.Close()
	}
}

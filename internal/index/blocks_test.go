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

// blockPatterns are rare words of the sessions genBlocky writes: a few blocks hold them.
var blockPatterns = []struct {
	p           string
	fixed, fold bool
}{{"wombat", true, false}, {"WOMBAT", true, true}, {`wom(bat|ble) \w+`, false, false}, {"quokka wombat", true, false},
	{"numbat", true, false}, {"the parser", true, false}}

// blockyLine is one message of a session of format (pi, claude or openai), line n, saying text.
func blockyLine(format string, n int, role, text string) string {
	q := strings.ReplaceAll(text, `"`, `\"`)
	if format == "openai" {
		return fmt.Sprintf(`{"role":%q,"content":"%s"}`, role, q)
	}
	if format == "pi" {
		return fmt.Sprintf(`{"type":"message","id":"m%d","parentId":"m%d","timestamp":"2026-05-12T01:02:27.673Z","message":{"role":%q,"content":[{"type":"text","text":"%s"}],"timestamp":%d}}`, n, n-1, role, q, n)
	}
	return fmt.Sprintf(`{"type":%q,"uuid":"u%d","parentUuid":"u%d","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":%q,"content":[{"type":"text","text":"%s"}]}}`, role, n, n-1, role, q)
}

// blockySession is a session of format of about size bytes, its texts random words, "wombat"
// in about one line of 150 and "numbat" once; long adds a line of 200 KB, bom a BOM, crlf
// CRLF line ends, blank a blank line every 40 lines.
func blockySession(r *rand.Rand, format string, size int, long, bom, crlf, blank bool) string {
	var b strings.Builder
	end := "\n"
	if crlf {
		end = "\r\n"
	}
	if bom {
		b.WriteString("\uFEFF")
	}
	if format == "pi" {
		b.WriteString(`{"type":"session","version":3,"id":"019e19b4-eb48-746a-aa6b-8dfcfa37954b","timestamp":"2026-05-12T01:02:27.657Z","cwd":"/w"}` + end)
	}
	word := func() string {
		switch k := r.Intn(600); {
		case k < 4:
			return "wombat"
		case k < 6:
			return "wombles"
		}
		return archiveWords[r.Intn(len(archiveWords))]
	}
	for n := 1; b.Len() < size; n++ {
		role := []string{"user", "assistant"}[n%2]
		var text []string
		for range 8 + r.Intn(40) {
			text = append(text, word())
		}
		if n == 700 {
			text = append(text, "numbat")
		}
		if long && n == 300 {
			text = append(text, strings.Repeat("kernel cache ", 200<<10/13), "wombat here")
		}
		b.WriteString(blockyLine(format, n, role, strings.Join(text, " ")) + end)
		if blank && n%40 == 0 {
			b.WriteString(end)
		}
	}
	return b.String()
}

// markedSession is a session in OpenAI's format whose ctxc marker says that the lines after it
// are copies of its tail: the copies that hold "wombat" are blocks after the marker's, and a
// scan skips them only because it read the marker.
func markedSession() string {
	var b strings.Builder
	filler := func(n int) {
		for i := range n {
			fmt.Fprintf(&b, `{"role":"user","content":"filler line %d of the parser and the lexer"}`+"\n", i)
		}
	}
	filler(2000)
	fmt.Fprintf(&b, `{"compact":"what came before","ctxc":{"v":1,"tail_lines":%d}}`+"\n", 2000+3)
	filler(2000)
	for range 3 {
		b.WriteString(`{"role":"assistant","content":"a copied wombat line"}` + "\n")
	}
	b.WriteString(`{"role":"assistant","content":"a new wombat line"}` + "\n")
	return b.String()
}

// genBlocky writes sessions in agents' formats of several blocks each, in every shape a block
// must be read right in: long lines, a BOM, CRLF, blank lines, an unterminated last line; and
// two in a generic format: one whose ctxc marker makes later blocks copies, one with no marker
// (the last; read in blocks as an agent's).
func genBlocky(t *testing.T, dir string) []string {
	t.Helper()
	r := rand.New(rand.NewSource(11))
	var files []string
	for i, shape := range []struct {
		format                 string
		size                   int
		long, bom, crlf, blank bool
		unterminated           bool
	}{
		{"pi", 400 << 10, false, false, false, false, false},
		{"claude", 400 << 10, false, false, false, false, false},
		{"pi", 300 << 10, true, false, false, false, false},
		{"claude", 300 << 10, true, true, false, true, false},
		{"pi", 300 << 10, false, true, true, false, false},
		{"claude", 250 << 10, false, false, true, true, false},
		{"pi", 250 << 10, false, false, false, true, true},
		{"claude", 200 << 10, false, false, false, false, true},
		{"openai", 0, false, false, false, false, false},
		{"openai", 300 << 10, false, false, false, false, false},
	} {
		content := blockySession(r, shape.format, shape.size, shape.long, shape.bom, shape.crlf, shape.blank)
		if shape.format == "openai" && shape.size == 0 {
			content = markedSession()
		}
		if shape.unterminated {
			content += blockyLine(shape.format, 100000, "user", "wombat still being written")
		}
		p := filepath.Join(dir, fmt.Sprintf("b%02d-%s.jsonl", i, shape.format))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestBlocksAgreeWithScan: grep reading only the blocks of sessions that the index names gives
// a scan's hits (lines, roles, snippets), for sessions of many blocks with long lines, a BOM,
// CRLF, blank lines and a last line still being written, and after sessions grew and were
// indexed again from where the index stopped; and it does read only part of some sessions.
func TestBlocksAgreeWithScan(t *testing.T) {
	src := t.TempDir()
	files := genBlocky(t, src)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{Warn: func(err error) { t.Error(err) }}); err != nil {
		t.Fatal(err)
	}
	if _, partial := agreeOn(t, dir, files, "fresh", blockPatterns); partial == 0 {
		t.Fatal("no session was read in part")
	}
	plain, marked := files[len(files)-1], files[len(files)-2]
	if parts := partsOf(t, dir, files, "wombat"); len(parts[plain]) == 0 || len(parts[marked]) != 0 {
		t.Fatalf("generic sessions read in %d parts without a marker (want some), %d with one (want none)", len(parts[plain]), len(parts[marked]))
	}
	r := rand.New(rand.NewSource(12))
	for round := range 2 {
		for i, f := range files[:3] {
			format := []string{"pi", "claude", "pi"}[i]
			more := blockySession(r, format, 150<<10, round == 1 && i == 0, false, false, false)
			more = more[strings.IndexByte(more, '\n')+1:] // (pi: no second header)
			appendRaw(t, f, more+blockyLine(format, 5000+round, "assistant", "wombat appended")+"\n")
		}
		appended := 3
		if round == 1 { // the generic session gets a marker now: read whole from then on
			var tail strings.Builder
			fmt.Fprintf(&tail, `{"compact":"the plain session so far","ctxc":{"v":1,"tail_lines":3}}`+"\n")
			for range 3 {
				tail.WriteString(`{"role":"assistant","content":"a copied wombat line"}` + "\n")
			}
			appendRaw(t, plain, tail.String())
			appended++
		}
		st, err := Update(dir, files, []string{src}, UpdateOptions{})
		if err != nil || st.Appended != appended {
			t.Fatalf("append %d: %+v %v", round, st, err)
		}
		if parts := partsOf(t, dir, files, "wombat"); (round == 1) != (len(parts[plain]) == 0) {
			t.Fatalf("append %d: the generic session is read in %d parts", round, len(parts[plain]))
		}
		if _, partial := agreeOn(t, dir, files, fmt.Sprintf("appended %d", round), blockPatterns); partial == 0 {
			t.Fatalf("append %d: no session was read in part", round)
		}
	}
}

// TestBlockPlaces: each block records the byte range of its lines and its first line's number,
// from a file's start and from where an append started; blank lines count, and lie in no
// block when they fall between two.
func TestBlockPlaces(t *testing.T) {
	long := `{"role":"user","content":"` + strings.Repeat("a", blockSize) + `"}` // a block of its own
	short := `{"role":"user","content":"b"}`
	tests := []struct {
		name     string
		first    string // the file indexed first
		appended string // then appended, and indexed from where the index stopped
		want     []blockPlace
	}{
		{"one block", short + "\n" + short + "\n", "", []blockPlace{{0, 60, 1}}},
		{"a long line ends a block", long + "\n" + short + "\n", "",
			[]blockPlace{{0, int64(len(long)) + 1, 1}, {int64(len(long)) + 1, int64(len(long)) + 31, 2}}},
		{"blank lines between blocks", long + "\n\n\n" + short + "\n", "",
			[]blockPlace{{0, int64(len(long)) + 1, 1}, {int64(len(long)) + 3, int64(len(long)) + 33, 4}}},
		{"BOM and CRLF", "\uFEFF" + short + "\r\n" + short + "\r\n", "", []blockPlace{{0, 65, 1}}},
		{"appended", short + "\n", "\n" + short + "\n",
			[]blockPlace{{0, 30, 1}, {31, 61, 3}}},
		{"an unterminated line is left for later", short + "\n" + short, "\n" + short + "\n",
			[]blockPlace{{0, 30, 1}, {30, 90, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			p := filepath.Join(src, "s.jsonl")
			os.WriteFile(p, []byte(tt.first), 0o644)
			dir := filepath.Join(t.TempDir(), "index")
			if _, err := Update(dir, []string{p}, nil, UpdateOptions{Format: "openai"}); err != nil {
				t.Fatal(err)
			}
			if tt.appended != "" {
				appendRaw(t, p, tt.appended)
				if st, err := Update(dir, []string{p}, nil, UpdateOptions{Format: "openai"}); err != nil || st.Appended != 1 {
					t.Fatalf("append: %+v %v", st, err)
				}
			}
			if got := indexedPlaces(t, dir); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("places %v, want %v", got, tt.want)
			}
		})
	}
}

// indexedPlaces lists the places of every block of the index's segments, in order.
func indexedPlaces(t *testing.T, dir string) []blockPlace {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []blockPlace
	for _, s := range r.segs {
		if s.f.nBlocks == 0 {
			continue
		}
		b, ok := s.places(nil, 0, uint32(s.f.nBlocks-1))
		if !ok {
			t.Fatalf("%s: places unreadable", s.name)
		}
		for i := range int(s.f.nBlocks) {
			p, ok := placeAt(b, i)
			if !ok {
				t.Fatalf("%s: block %d: place %+v", s.name, i, p)
			}
			out = append(out, p)
		}
	}
	return out
}

// partsOf gives the parts grep reads of each file for the fixed string lit (none: the whole).
func partsOf(t *testing.T, dir string, files []string, lit string) map[string][]grep.Range {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := grep.Compile(lit, true, false)
	if err != nil {
		t.Fatal(err)
	}
	read, parts, _, _ := r.Candidates(files, p)
	out := map[string][]grep.Range{}
	for i, f := range read {
		out[f] = parts[i].Parts
	}
	return out
}

// TestAskThenCandidates: the segments asked before the walk (Ask) give Candidates the answer it
// gets asking them itself, and a second Candidates of the same pattern gives it again.
func TestAskThenCandidates(t *testing.T) {
	src := t.TempDir()
	files := genBlocky(t, src)
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, []string{src}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := grep.Compile("wombat", true, false)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	wantRead, wantParts, _, _ := alone.Candidates(files, p)
	asked, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer asked.Close()
	asked.Ask(p)
	for round := range 2 {
		read, parts, _, _ := asked.Candidates(files, p)
		if !reflect.DeepEqual(read, wantRead) || !reflect.DeepEqual(parts, wantParts) {
			t.Fatalf("round %d: read %d files in %v, want %d in %v", round, len(read), parts, len(wantRead), wantParts)
		}
	}
}

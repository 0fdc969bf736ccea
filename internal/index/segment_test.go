package index

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestTermLookupAcrossTheSample: a segment of many terms finds each one, with its document
// frequency, whichever run of the sample it falls in (first, last, at a run's edge), and finds
// no term that it does not hold, before, between or after them.
func TestTermLookupAcrossTheSample(t *testing.T) {
	b := newBuilder()
	var terms []string
	for i := range 3*sampleStride + 5 {
		terms = append(terms, fmt.Sprintf("word%c%c%cx", 'a'+i/26/26, 'a'+i/26%26, 'a'+i%26)) // x: no plural to fold
	}
	for i, term := range terms {
		text := term
		if i%3 == 0 {
			text += " common" // so that df differs: common is in a third of the documents
		}
		b.addDoc(doc{file: 1, line: uint64(i + 1), length: 1}, []string{text})
		b.addRaw(jsonl.Line{Bytes: []byte(text), Num: i + 1, Offset: int64(i) * 100, Size: len(text) + 1}, 1)
	}
	b.endFile(1)
	p := filepath.Join(t.TempDir(), "seg.idx")
	if err := b.write(p); err != nil {
		t.Fatal(err)
	}
	s, err := openSegment(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sort.Strings(terms)
	for _, term := range terms {
		if df, post, ok := s.term(term); !ok || df != 1 || len(post) == 0 {
			t.Errorf("%s: df %d, %d bytes of postings, found %v", term, df, len(post), ok)
		}
	}
	if df, _, ok := s.term("common"); !ok || df != uint32((len(terms)+2)/3) {
		t.Errorf("common: df %d (found %v), want %d", df, ok, (len(terms)+2)/3)
	}
	for _, absent := range []string{"", "aaa", "word", "wordaaaa", "wordaezz", "wordafa ", "wordzzz", "zzz"} {
		if _, _, ok := s.term(absent); ok {
			t.Errorf("%q found", absent)
		}
	}
	if s.failed() != nil {
		t.Errorf("failed: %v", s.failed())
	}
}

// failingReader answers the first reads, then fails every one.
type failingReader struct {
	r     *bytes.Reader
	after int
}

func (f *failingReader) ReadAt(p []byte, off int64) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("input/output error")
	}
	f.after--
	return f.r.ReadAt(p, off)
}

// TestUnreadableSegmentReadsEveryFile: when a segment cannot be read in the middle of a query,
// grep is not told that a file lacks the pattern: holding answers nothing (read every file).
func TestUnreadableSegmentReadsEveryFile(t *testing.T) {
	b := newBuilder()
	b.addDoc(doc{file: 1, line: 1, length: 2}, []string{"reconnect backoff"})
	line := `{"text":"reconnect backoff"}`
	b.addRaw(jsonl.Line{Bytes: []byte(line), Num: 1, Size: len(line) + 1}, 1)
	b.endFile(1)
	var out bytes.Buffer
	buf := countWriter{w: bufio.NewWriter(&out)}
	if err := b.writeTo(&buf); err != nil || buf.w.Flush() != nil {
		t.Fatal(err)
	}
	for after := 2; after < 6; after++ {
		s, err := newSegment("seg", &failingReader{bytes.NewReader(out.Bytes()), after}, int64(out.Len()))
		if err != nil {
			t.Fatal(err)
		}
		r := &Reader{segs: []*segment{s}}
		if hold := r.holding([]byte("backoff")); hold != nil {
			t.Errorf("reads failing after %d: holding answered %v", after, hold)
		}
	}
	s, err := newSegment("seg", bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{segs: []*segment{s}}
	if hold := r.holding([]byte("backoff")); hold[1] == nil || len(hold) != 1 ||
		!reflect.DeepEqual(hold[1].blocks, []grep.Range{{From: 0, To: int64(len(line) + 1), Line: 1}}) {
		t.Errorf("a readable segment: holding %v, want file 1", hold)
	}
	if hold := r.holding([]byte("absent")); hold == nil || len(hold) != 0 {
		t.Errorf("a readable segment, absent pattern: holding %v, want none", hold)
	}
}

// TestManifestInPieces: a manifest read in pieces (a search's way) gives each id the entry and
// path the whole manifest gives, a path longer than the first read included, and no entry to
// an id no file has.
func TestManifestInPieces(t *testing.T) {
	m := newManifest()
	m.Segments = []SegmentInfo{{Name: "seg-000000.idx", Docs: 3, Length: 30, Text: 3000}}
	long := "/" + strings.Repeat("a-very-long-folder-name/", 120) + "s.jsonl"
	for i, p := range []string{"/b.jsonl", long, "/a.jsonl.zst", "/c#session"} {
		m.Files[p] = &FileEntry{ID: uint32(10 + 7*i), Size: int64(100 * i), MTime: int64(i) - 5, Done: 1, Lines: i,
			Tail: "t", Format: "pi", Session: fmt.Sprint("s", i), Project: "/p", Start: 1764000000, Compressed: i == 2, Scan: i == 3}
	}
	m.Dirs["/"] = &Listing{MTime: 1, Names: []string{"a.jsonl.zst", "b.jsonl"}}
	dir := t.TempDir()
	if err := m.write(dir, m.encode()); err != nil {
		t.Fatal(err)
	}
	mf, err := openManifestFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	if len(mf.head.Segments) != 1 || mf.head.Segments[0] != m.Segments[0] {
		t.Errorf("segments %+v", mf.head.Segments)
	}
	for p, want := range m.Files {
		path, e, ok, err := mf.entry(want.ID)
		if err != nil || !ok || path != p || *e != *want {
			t.Errorf("id %d: %q %+v %v %v; want %q %+v", want.ID, path, e, ok, err, p, want)
		}
	}
	for _, id := range []uint32{0, 11, 100} {
		if _, _, ok, err := mf.entry(id); ok || err != nil {
			t.Errorf("id %d: found %v (%v)", id, ok, err)
		}
	}
	data, err := mf.bytes()
	if err != nil {
		t.Fatal(err)
	}
	whole, err := decodeManifest(data)
	if err != nil || len(whole.Files) != len(m.Files) || len(whole.Dirs) != 1 {
		t.Errorf("whole: %v, %v", whole, err)
	}
}

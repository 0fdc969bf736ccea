package index

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// FuzzSegment: a segment built from any texts opens, every term of the texts is found with the
// right document frequency, and the block of their lines says where they are; any bytes in a segment file are an error or a segment that
// answers lookups without a panic.
func FuzzSegment(f *testing.F) {
	f.Add("fix the reconnect bug", "tests pass \u00e9t\u00e9", []byte(segMagic))
	f.Add("", "a", []byte(segMagic+"\x00\x00"))
	f.Fuzz(func(t *testing.T, a, b string, raw []byte) {
		dir := t.TempDir()
		bl := newBuilder()
		var at int64
		for i, text := range []string{a, b} {
			bl.addDoc(doc{file: 1, line: uint64(i + 1)}, []string{text})
			bl.addRaw(jsonl.Line{Bytes: []byte(text), Num: i + 1, Offset: at, Size: len(text) + 1}, 1)
			at += int64(len(text)) + 1
		}
		bl.endFile(1)
		p := filepath.Join(dir, "seg.idx")
		if err := bl.write(p); err != nil {
			t.Fatal(err)
		}
		s, err := openSegment(p)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]uint32{}
		for _, text := range []string{a, b} {
			seen := map[string]bool{}
			eachTerm(text, nil, func(term []byte) {
				if !seen[string(term)] && !stopwords[string(term)] {
					seen[string(term)] = true
					want[string(term)]++
				}
			})
		}
		for term, df := range want {
			if got, _, ok := s.term(term); !ok || got != df {
				t.Errorf("term %q: df %d (found %v), want %d", term, got, ok, df)
			}
		}
		if pl, ok := s.places(nil, 0, 0); !ok || len(pl) != placeSize {
			t.Fatalf("the block's place unreadable (%v)", ok)
		} else {
			end := at // a text of blockSize bytes or more ends the first block
			if len(a)+1 >= blockSize {
				end = int64(len(a)) + 1
			}
			if got, ok := placeAt(pl, 0); !ok || got != (blockPlace{0, end, 1}) {
				t.Errorf("the first block's place %+v (%v), want [0, %d) from line 1", got, ok, end)
			}
		}
		if len(a) >= 3 && !strings.ContainsAny(a[:3], "\\") {
			table, _ := s.trigrams(nil)
			from, to, _ := s.trigramList(table, litTrigrams([]byte(a[:3]))[0])
			_, ids := s.trigramBlocks(nil, from, to, nil)
			if len(ids) != 1 {
				t.Fatalf("trigram of %q: blocks %v", a[:3], ids)
			}
			if file, ok := s.blockFile(ids[0]); !ok || file != 1 {
				t.Errorf("trigram of %q: block %d of file %d (%v)", a[:3], ids[0], file, ok)
			}
		}
		s.Close()
		q := filepath.Join(dir, "raw.idx")
		os.WriteFile(q, raw, 0o644)
		if s, err := openSegment(q); err == nil {
			s.term(a)
			table, _ := s.trigrams(nil)
			from, to, ok := s.trigramList(table, 0x616263)
			if ok {
				_, ids := s.trigramBlocks(nil, from, to, nil)
				for _, b := range ids {
					s.blockFile(b)
				}
				if len(ids) > 0 {
					if pl, ok := s.places(nil, ids[0], ids[len(ids)-1]); ok {
						for i := range len(pl) / placeSize {
							placeAt(pl, i)
						}
					}
				}
			}
			if table, ok := s.escapeTable(nil); ok {
				for i := 0; i+fileSize <= len(table); i += fileSize {
					escapeAt(table, i)
				}
			}
			s.lengths(nil)
			if s.nDocs > 0 {
				s.doc(0)
				s.doc(s.nDocs - 1)
			}
			s.Close()
		}
	})
}

// FuzzTerms: terms are lower-case runs of letters and digits of minTerm to maxTerm bytes, the
// same as the rune-by-rune reading (termsByRune) finds.
func FuzzTerms(f *testing.F) {
	f.Add("Fix the Reconnect bug, naïve CAFÉ 42 tests")
	f.Add("abcdefghijklmnopqrstuvwxyz0123456é a1b2c3d4 ΑΒΓΔabc x\xffyz İstanbul ǅemal")
	f.Fuzz(func(t *testing.T, text string) {
		var got []string
		eachTerm(text, nil, func(term []byte) {
			got = append(got, string(term))
			if len(term) < minTerm-1 || len(term) > maxTerm {
				t.Errorf("term %q of %d bytes", term, len(term))
			}
			if strings.ToLower(string(term)) != string(term) && strings.ToValidUTF8(string(term), "") == string(term) {
				for _, r := range string(term) {
					if r < 128 && r >= 'A' && r <= 'Z' {
						t.Errorf("term %q not lower-cased", term)
					}
				}
			}
		})
		if want := termsByRune(text); !slices.Equal(got, want) {
			t.Errorf("%q: terms %q, read rune by rune %q", text, got, want)
		}
	})
}

// termsByRune reads the terms of text one rune at a time: what eachTerm must find.
func termsByRune(text string) []string {
	var term []byte
	var terms []string
	long := false
	flush := func() {
		if !long && len(term) >= minTerm && !noise(term) {
			terms = append(terms, string(stem(term)))
		}
		term, long = term[:0], false
	}
	for _, r := range text {
		if !(r < utf8.RuneSelf && termLower[r] != 0 || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			flush()
			continue
		}
		if !long {
			term = utf8.AppendRune(term, unicode.ToLower(r))
		}
		if len(term) > maxTerm {
			term, long = term[:0], true
		}
	}
	flush()
	return terms
}

// FuzzManifest: any bytes are a manifest or an error, never a panic; a manifest written is
// read back as it was.
func FuzzManifest(f *testing.F) {
	m := newManifest()
	m.NextFile, m.NextSeg = 3, 1
	m.Segments = []SegmentInfo{{Name: "seg-000000.idx", Docs: 2, Length: 9, Text: 100}}
	m.Files["/a.jsonl"] = &FileEntry{ID: 1, Size: 100, MTime: -5, Done: 100, Lines: 2, Tail: "ab", Format: "pi", Session: "s\u00e9", Scan: true}
	m.Files["/b.jsonl.zst"] = &FileEntry{ID: 2, Size: 7, Format: "codex", Project: "/p", Start: 1764000000, Compressed: true}
	m.Dirs["/p"] = &Listing{MTime: 1764000000000000000, Names: []string{"a.jsonl", "sub/"}}
	f.Add(m.encode())
	f.Add([]byte(manifestMagic))
	f.Add([]byte(`{"schema":2,"files":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		raw := filepath.Join(dir, "raw")
		os.WriteFile(raw, data, 0o644)
		if mf, err := openManifestFile(raw); err == nil {
			for id := range uint32(8) {
				mf.entry(id) // any answer, or an error, but no panic
			}
			mf.Close()
		}
		if v, err := newManifestView(dir, data); err == nil {
			v.listing("/p") // any answer, but no panic
			v.states([]string{"/a.jsonl", "", "/b.jsonl.zst", "/a.jsonl"})
		}
		m, err := decodeManifest(data)
		if err != nil {
			return
		}
		m.Schema = schema
		enc := m.encode()
		if err := m.write(dir, enc); err != nil {
			t.Fatal(err)
		}
		viewAgrees(t, enc, m)
		back, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Segments, m.Segments) && len(m.Segments)+len(back.Segments) > 0 {
			t.Fatalf("segments read back %+v, wrote %+v", back.Segments, m.Segments)
		}
		if len(back.Dirs) != len(m.Dirs) {
			t.Fatalf("read back %d folders, wrote %d", len(back.Dirs), len(m.Dirs))
		}
		for p, l := range m.Dirs {
			if !reflect.DeepEqual(back.Dirs[p], l) && len(l.Names)+len(back.Dirs[p].Names) > 0 {
				t.Fatalf("%q: read back %+v, wrote %+v", p, back.Dirs[p], l)
			}
		}
		if len(back.Files) != len(m.Files) {
			t.Fatalf("read back %d files, wrote %d", len(back.Files), len(m.Files))
		}
		for p, e := range m.Files {
			if *back.Files[p] != *e {
				t.Fatalf("%q: read back %+v, wrote %+v", p, back.Files[p], e)
			}
		}
	})
}

// viewAgrees checks that grep's view of a manifest's bytes finds what decoding them gives.
func viewAgrees(t *testing.T, enc []byte, m *Manifest) {
	t.Helper()
	v, err := newManifestView("index", enc)
	if err != nil {
		t.Fatal(err)
	}
	for p, l := range m.Dirs {
		got := v.listing(p)
		if got == nil || got.MTime != l.MTime || len(got.Names) != len(l.Names) || len(l.Names) > 0 && !reflect.DeepEqual(got.Names, l.Names) {
			t.Fatalf("%q: view's listing %+v, decoded %+v", p, got, l)
		}
	}
	var paths []string
	for p := range m.Files {
		paths = append(paths, p, p+"-not-indexed")
	}
	sorted := append([]string(nil), paths...)
	slices.Sort(sorted)
	place := map[string]int{} // a file's place among the manifest's, sorted by path
	for _, p := range sorted {
		if _, ok := place[p]; !ok && m.Files[p] != nil {
			place[p] = len(place)
		}
	}
	for i, st := range v.states(paths) {
		e := m.Files[paths[i]]
		want := indexedState{}
		if e != nil {
			want = indexedState{id: e.ID, entry: place[paths[i]], found: true, compressed: e.Compressed, scan: e.Scan, size: e.Size, mtime: e.MTime, done: e.Done, format: e.Format}
		}
		if st != want {
			t.Fatalf("%q: view's state %+v, decoded %+v", paths[i], st, want)
		}
	}
}

// FuzzCleanPath: the check that spares a walk's paths filepath.Clean says what Clean says.
func FuzzCleanPath(f *testing.F) {
	for _, p := range []string{"/", "/a/b", "/a//b", "/a/./b", "/a/../b", "/a/", "/.x/..y"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		want := strings.HasPrefix(p, "/") && filepath.Clean(p) == p
		if got := isCleanAbs(p); got != want {
			t.Fatalf("isCleanAbs(%q) = %v, want %v", p, got, want)
		}
	})
}

// FuzzTrigramSet: the set holds the distinct trigrams of the bytes (lower-cased), in the order
// first seen, and after a reset those of the bytes that follow only.
func FuzzTrigramSet(f *testing.F) {
	f.Add([]byte("Fix the Reconnect bug"), []byte("naïve CAFÉ $x% ~~~ {\"a\":1}\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := newTrigramSet()
		for _, text := range [][]byte{a, b} {
			s.add(text)
			want := litTrigrams(text) // (those grep looks up for the text as a literal)
			for _, tri := range want {
				if !s.contains(tri) {
					t.Errorf("%q: lacks %06x", text, tri)
				}
			}
			if !slices.Equal(s.list, want) {
				t.Errorf("%q: trigrams %x, want %x", text, s.list, want)
			}
			s.reset() // (clears the trigrams as resetGrams does, and the next text starts anew)
			for _, tri := range want {
				if s.contains(tri) {
					t.Errorf("%q: %06x left after resetGrams", text, tri)
				}
			}
		}
	})
}

// FuzzTrigramChunks: the trigrams and escapes of bytes taken in two chunks, cut anywhere (an
// escape too), are those of the bytes taken whole.
func FuzzTrigramChunks(f *testing.F) {
	f.Add([]byte(`{"a":"x\u0041y\/z \\u0042"}`), 9)
	f.Add([]byte(`ab\u00`), 4)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		if cut < 0 || cut > len(b) {
			cut = len(b) / 2
		}
		whole, split := newTrigramSet(), newTrigramSet()
		whole.add(b)
		split.add(b[:cut])
		split.add(b[cut:])
		if whole.escaped != split.escaped {
			t.Errorf("escapes %v whole, %v in chunks cut at %d", whole.escaped, split.escaped, cut)
		}
		got, want := slices.Sorted(slices.Values(split.list)), slices.Sorted(slices.Values(whole.list))
		if !slices.Equal(got, want) {
			t.Errorf("trigrams %v whole, %v in chunks cut at %d", want, got, cut)
		}
	})
}

// FuzzLineTime: the time of any valid JSON line is what gjson reads of the line whole (its
// first "timestamp", else its "info.time.created").
func FuzzLineTime(f *testing.F) {
	f.Add(`{"message":{"timestamp":1},"timestamp":"2026-11-01T10:00:00Z"}`)
	f.Add(`{"time\u0073tamp":1793527200,"info":{"time":{"created":1}}}`)
	f.Add(`{"info":{"time":{"created":1793527200123}}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if !jsonl.Valid([]byte(line)) {
			return
		}
		d := gjson.Parse(line)
		ref := d.Get("timestamp")
		if !ref.Exists() {
			ref = d.Get("info.time.created")
		}
		if got, want := lineTime([]byte(line)), timeOf(ref); got != want {
			t.Errorf("%q: %d, gjson reads %d", line, got, want)
		}
	})
}

// FuzzCheckList: a merge's check of a list, which reads 8 one-byte varints at once, gives what
// reading the list item by item gives: the items, the last, and an error for the same lists.
func FuzzCheckList(f *testing.F) {
	f.Add([]byte{1, 1, 2, 3, 1, 1, 5, 2, 1, 1, 1, 1}, true, 40)
	f.Add([]byte{0, 1, 1, 1, 1, 1, 1, 1, 1, 0x81, 1, 2}, false, 300)
	f.Add([]byte{0, 1, 0x7f, 1, 0x7f, 1, 0x7f, 1, 0x7f, 1}, true, 300)
	f.Fuzz(func(t *testing.T, list []byte, counted bool, n int) {
		for _, start := range []int64{-1, 0} {
			items, last, err := checkList(list, counted, start, n)
			wantItems, wantLast, wantErr := checkListByItem(list, counted, start, n)
			if (err != nil) != (wantErr != nil) || err == nil && (items != wantItems || last != wantLast) {
				t.Errorf("%x counted %v from %d below %d: %d items, last %d, %v; item by item %d, %d, %v",
					list, counted, start, n, items, last, err, wantItems, wantLast, wantErr)
			}
		}
	})
}

// checkListByItem is checkList read one varint at a time.
func checkListByItem(list []byte, counted bool, at int64, n int) (int, int64, error) {
	items := 0
	for len(list) > 0 {
		delta, k := binary.Uvarint(list)
		if k <= 0 {
			return 0, 0, errBadSegment
		}
		list = list[k:]
		if counted {
			if _, k = binary.Uvarint(list); k <= 0 {
				return 0, 0, errBadSegment
			}
			list = list[k:]
		}
		if at += int64(delta); at < 0 || at >= int64(n) {
			return 0, 0, errBadSegment
		}
		items++
	}
	return items, at, nil
}

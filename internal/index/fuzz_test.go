package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSegment: a segment built from any texts opens, and every term of the texts is found with
// the right document frequency; any bytes in a segment file are an error or a segment that
// answers lookups without a panic.
func FuzzSegment(f *testing.F) {
	f.Add("fix the reconnect bug", "tests pass \u00e9t\u00e9", []byte(segMagic))
	f.Add("", "a", []byte("CTXCSEG1\x00\x00"))
	f.Fuzz(func(t *testing.T, a, b string, raw []byte) {
		dir := t.TempDir()
		bl := newBuilder()
		for i, text := range []string{a, b} {
			bl.addDoc(doc{file: 1, line: uint32(i + 1)}, []string{text})
			bl.addRaw([]byte(text), 1)
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
		if len(a) >= 3 && !strings.ContainsAny(a[:3], "\\") {
			if ids := s.trigramBlocks(litTrigrams([]byte(a[:3]))[0]); len(ids) != 1 || s.blockFile(ids[0]) != 1 {
				t.Errorf("trigram of %q: blocks %v", a[:3], ids)
			}
		}
		s.Close()
		q := filepath.Join(dir, "raw.idx")
		os.WriteFile(q, raw, 0o644)
		if s, err := openSegment(q); err == nil {
			s.term(a)
			for _, b := range s.trigramBlocks(0x616263) {
				if b < uint32(s.f.nBlocks) {
					s.blockFile(b)
				}
			}
			s.escapes()
			if s.nDocs > 0 {
				s.doc(0)
				s.docLength(s.nDocs - 1)
			}
			s.Close()
		}
	})
}

// FuzzTerms: terms are lower-case runs of letters and digits of minTerm to maxTerm bytes.
func FuzzTerms(f *testing.F) {
	f.Add("Fix the Reconnect bug, naïve CAFÉ 42 tests")
	f.Fuzz(func(t *testing.T, text string) {
		eachTerm(text, nil, func(term []byte) {
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
	})
}

// FuzzManifest: any bytes are a manifest or an error, never a panic; a manifest written is
// read back as it was.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"schema":1,"next_file":3,"next_segment":1,"segments":[{"name":"seg-000000.idx","docs":2,"length":9,"text":100}],"files":{"/a.jsonl":{"id":1,"size":100,"done":100,"format":"pi","session":"s\u00e9","scan":true}}}`))
	f.Add([]byte(`{"files":{"x":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest(data)
		if err != nil {
			return
		}
		dir := t.TempDir()
		m.Schema = schema
		if err := m.write(dir); err != nil {
			t.Fatal(err)
		}
		back, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(back.Files) != len(m.Files) || len(back.Segments) != len(m.Segments) {
			t.Fatalf("read back %d files %d segments, wrote %d %d", len(back.Files), len(back.Segments), len(m.Files), len(m.Segments))
		}
		for p, e := range m.Files {
			if !utf8.ValidString(p + e.Tail + e.Format + e.Session + e.Project) {
				continue // ctxc writes manifests with encoding/json: valid UTF-8
			}
			if *back.Files[p] != *e {
				t.Fatalf("%q: read back %+v, wrote %+v", p, back.Files[p], e)
			}
		}
	})
}

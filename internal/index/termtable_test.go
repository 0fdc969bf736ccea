package index

import (
	"fmt"
	"slices"
	"testing"
)

// TestTermTableFindsWhatAMapFinds puts terms of every length up to maxTerm, many of them
// sharing their first 8 bytes, some without an id (as stopwords), through several growths,
// and checks every lookup against a map.
func TestTermTableFindsWhatAMapFinds(t *testing.T) {
	tests := []struct {
		name  string
		terms func(i int) string
	}{
		{"short", func(i int) string { return fmt.Sprintf("%x", i) }},
		{"shared prefix", func(i int) string { return fmt.Sprintf("prefix00%d", i) }},
		{"longest", func(i int) string { return fmt.Sprintf("%032d", i) }},
		{"every length", func(i int) string { return fmt.Sprintf("%0*d", 2+i%31, i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newTermTable()
			tab.slots = make([]uint64, 2*16)
			var strs []string
			want := map[string]int32{}
			for i := range 20000 {
				term := tt.terms(i)
				k := hashTerm([]byte(term))
				_, slot, ok := tab.get([]byte(term), k, strs)
				if ok != (want[term] != 0) {
					t.Fatalf("%q: found %v before it was put", term, ok)
				}
				if ok {
					continue
				}
				id := int32(-1)
				if len(term) > maxShortTerm || i%5 != 0 {
					id = int32(len(strs))
					strs = append(strs, term)
				}
				want[term] = id + 2 // (0: absent)
				tab.put(slot, k, id, strs)
			}
			for range 2 { // (the second time, from the terms found last as well)
				for term, id := range want {
					got, _, ok := tab.get([]byte(term), hashTerm([]byte(term)), strs)
					if !ok || got != id-2 {
						t.Fatalf("%q: got %d %v, want %d", term, got, ok, id-2)
					}
				}
			}
			for _, absent := range []string{"prefix00", "prefix00x", "zz", fmt.Sprintf("%033d", 1)} {
				if _, _, ok := tab.get([]byte(absent), hashTerm([]byte(absent)), strs); ok && want[absent] == 0 {
					t.Fatalf("%q found, never put", absent)
				}
			}
		})
	}
}

// TestStopwordsAreShort: a term without an id is found from its slot alone, which holds at
// most maxShortTerm bytes.
func TestStopwordsAreShort(t *testing.T) {
	for w := range stopwords {
		if len(w) > maxShortTerm {
			t.Errorf("stopword %q is longer than %d bytes", w, maxShortTerm)
		}
	}
}

// TestSortedTermsIsStringOrder checks the builder's order of terms (by their first 8 bytes,
// then the rest) against a sort of their strings: terms of every length, terms that start
// others, terms sharing their first 8 bytes, UTF-8 letters.
func TestSortedTermsIsStringOrder(t *testing.T) {
	tests := []struct {
		name  string
		terms []string
	}{
		{"prefixes of each other", []string{"abcdefghij", "abcdefgh", "abcdefg", "ab", "abcdefghi", "abd"}},
		{"shared first 8 bytes", []string{"prefix00z", "prefix00a", "prefix00", "prefix001", "prefix00aa"}},
		{"utf-8", []string{"ärger", "zebra", "über", "aé", "ae", "日本語", "日本"}},
		{"digits and letters", []string{"9", "10", "a1", "a", "z9", "00"}},
	}
	var many []string
	for i := range 5000 {
		many = append(many, fmt.Sprintf("%0*x", 2+i%31, i*7919))
	}
	tests = append(tests, struct {
		name  string
		terms []string
	}{"every length", many})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{strs: tt.terms}
			var got []string
			for _, id := range b.sortedTerms() {
				got = append(got, b.strs[id])
			}
			want := slices.Clone(tt.terms)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("order %q, want %q", got, want)
			}
		})
	}
}

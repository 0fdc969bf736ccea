package index

import (
	"encoding/binary"
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// maxTerm is the longest term kept, in bytes: longer runs of letters and digits are hashes,
// encoded data and the like, which no one searches for by word.
const maxTerm = 32

// minTerm is the shortest term kept, in bytes.
const minTerm = 2

// stopwords are words too common to rank by; they are neither indexed nor searched for.
var stopwords = map[string]bool{}

func init() {
	for _, w := range []string{"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from",
		"has", "have", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
		"so", "that", "the", "their", "then", "there", "these", "this", "to", "was", "we", "were",
		"what", "when", "where", "which", "while", "who", "will", "with", "you", "your"} {
		stopwords[w] = true
	}
}

// termLower maps each ASCII byte that is part of a term (a letter or a digit) to itself
// lower-cased, every other byte to 0 (bytes of 0x80 and above begin runes: termRun reads them).
var termLower = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = byte(c)
		t[c-'a'+'A'] = byte(c)
	}
	return t
}()

// eachTerm calls fn with each term of text: a run of letters and digits, lower-cased, of
// minTerm to maxTerm bytes (stopwords are the caller's to drop). The term's bytes are valid
// only during the call. A run of ASCII letters and digits is found with a table and lowered as
// it is copied; a run with other bytes (a letter of another script) is read rune by rune
// (termRun).
func eachTerm(text string, buf []byte, fn func(term []byte)) []byte {
	term := buf[:0]
	if cap(term) < maxTerm+8 { // (lowerTerm reads words past the term's end)
		term = make([]byte, 0, 2*maxTerm)
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			i, term = termRun(text, i, term, fn)
			continue
		}
		if termLower[c] == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && termLower[text[j]] != 0 {
			j++
		}
		if j < len(text) && text[j] >= utf8.RuneSelf {
			i, term = termRun(text, i, term, fn) // (the run may go on in another script)
			continue
		}
		if n := j - i; n >= minTerm && n <= maxTerm {
			term = term[:n]
			copy(term, text[i:j])
			if !noisy(lowerTerm(term), n) {
				fn(stem(term))
			}
		}
		i = j
	}
	return term[:0]
}

// lowerTerm lower-cases a term of ASCII letters and digits in place, 8 bytes at a time (its
// slice has room for a word past its end), and counts its digits. A letter gets bit 0x20 (its
// lower case), which a digit has; a digit is then the byte without bit 0x40.
func lowerTerm(term []byte) (digits int) {
	n := len(term)
	for k := 0; k < n; k += 8 {
		mask := ^uint64(0)
		if n-k < 8 {
			mask = 1<<(8*(n-k)) - 1
		}
		w := binary.LittleEndian.Uint64(term[k:k+8]) | 0x2020202020202020
		binary.LittleEndian.PutUint64(term[k:k+8], w)
		digits += bits.OnesCount64(^w & 0x4040404040404040 & mask)
	}
	return digits
}

// termRun reads the run of letters and digits (of any script) at text[i], or the one rune
// there that is neither, calls fn with its term, and says where the text goes on.
func termRun(text string, i int, term []byte, fn func(term []byte)) (int, []byte) {
	term = term[:0]
	long := false
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			l := termLower[c]
			if l == 0 {
				break
			}
			i++
			if !long {
				term = append(term, l)
			}
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				if len(term) == 0 && !long {
					return i + n, term // not part of a term
				}
				break
			}
			i += n
			if !long {
				term = utf8.AppendRune(term, unicode.ToLower(r))
			}
		}
		if len(term) > maxTerm {
			term, long = term[:0], true
		}
	}
	if !long && len(term) >= minTerm && !noise(term) {
		fn(stem(term))
	}
	return i, term[:0]
}

// queryTerms are the distinct terms of a query, in order.
func queryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	eachTerm(q, nil, func(t []byte) {
		if !seen[string(t)] && !stopwords[string(t)] {
			seen[string(t)] = true
			out = append(out, string(t))
		}
	})
	return out
}

// stem folds the plural of an English word into its singular, so that "goroutines" finds
// "goroutine" and "tests" finds "test": words of five letters or more ending in "ies" end in
// "y", and in "s" (not "ss", "us" or "is") lose it. Nothing more: a stemmer that cuts deeper
// joins words that mean different things in code ("handler", "handle").
func stem(t []byte) []byte {
	n := len(t)
	switch {
	case n < 5 || t[n-1] != 's':
		return t
	case t[n-2] == 'e' && t[n-3] == 'i':
		t[n-3] = 'y'
		return t[:n-2]
	case t[n-2] == 's' || t[n-2] == 'u' || t[n-2] == 'i':
		return t
	}
	return t[:n-1]
}

// noise reports whether a term is an identifier no one searches for by word: seven bytes or
// more mixing letters with two digits or more (hex ids, hashes, the parts of a UUID), or more
// than eight digits (timestamps, counters). Such terms would be most of a segment's dictionary
// while adding nothing to ranking; grep finds them.
func noise(t []byte) bool {
	digits := 0
	for _, c := range t {
		if '0' <= c && c <= '9' {
			digits++
		}
	}
	return noisy(digits, len(t))
}

// noisy is noise of a term of n bytes, digits of them digits.
func noisy(digits, n int) bool { return digits > 8 || digits >= 2 && digits < n && n >= 7 }

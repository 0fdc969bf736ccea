package index

import (
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

// wordByte says which ASCII bytes are part of a term: letters and digits.
var wordByte = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// eachTerm calls fn with each term of text: a run of letters and digits, lower-cased, of
// minTerm to maxTerm bytes (stopwords are the caller's to drop). The term's bytes are valid
// only during the call.
func eachTerm(text string, buf []byte, fn func(term []byte)) []byte {
	term := buf[:0]
	long := false
	flush := func() {
		if !long && len(term) >= minTerm && !noise(term) {
			fn(stem(term))
		}
		term, long = term[:0], false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if !wordByte[c] {
				if len(term) > 0 || long {
					flush()
				}
				continue
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			term = appendTermByte(term, c, &long)
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if len(term) > 0 || long {
				flush()
			}
			continue
		}
		if long {
			continue
		}
		term = utf8.AppendRune(term, unicode.ToLower(r))
		if len(term) > maxTerm {
			term, long = term[:0], true
		}
	}
	if len(term) > 0 || long {
		flush()
	}
	return term
}

// appendTermByte adds c to term, or marks the run too long to be a term.
func appendTermByte(term []byte, c byte, long *bool) []byte {
	if *long {
		return term
	}
	if len(term) == maxTerm {
		*long = true
		return term[:0]
	}
	return append(term, c)
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
	return digits > 8 || digits >= 2 && digits < len(t) && len(t) >= 7
}

package ledger

import (
	"strings"
	"unicode/utf8"
)

// How says how a text holds a fact of the ledger: what a careful reader accepts as the fact
// being there, decided by code.
type How uint8

// Ways a text holds a fact. Missing is the zero value.
const (
	Missing  How = iota
	Verbatim     // the fact's own text (compared normalized)
	Relative     // a file by its path below the session's folder or project, or its ~ or Windows form
	Name         // a file by its base name, which no other file of the session shares
	SameRef      // a URL or id written another way: scheme-less, trailing punctuation, fragment, short hash, v prefix
	Restated     // a rule or request in other words that keep its key terms, negations and numbers
)

var howNames = [...]string{"missing", "verbatim", "relative path", "name", "normalized", "restated"}

// String is the way's name in the audit's output.
func (h How) String() string {
	if int(h) < len(howNames) {
		return howNames[h]
	}
	return "unknown"
}

// MarshalText writes the way's name for JSON, as JSON names categories: relative_path.
func (h How) MarshalText() ([]byte, error) {
	return []byte(strings.ReplaceAll(h.String(), " ", "_")), nil
}

// MatchOptions choose how facts are looked for.
type MatchOptions struct {
	// Strict counts a fact only when the text holds it verbatim (normalized containment of the
	// whole fact): the audit's rule before facts were matched as people write them.
	Strict bool
}

// Match tells, for each fact of the ledger (in the order of ByCat), how a text holds it.
func Match(text string, l *Ledger, o MatchOptions) [NumCategories][]How {
	var out [NumCategories][]How
	if l == nil {
		return out
	}
	facts := l.Facts()
	hows := factsMatcher(facts, o).match(text, facts)
	for c := range l.ByCat {
		out[c], hows = hows[:len(l.ByCat[c])], hows[len(l.ByCat[c]):]
	}
	return out
}

// matcher matches the facts of one ledger; it knows the session's files, so that a base name
// or a partial path shared by two of them does not count.
type matcher struct {
	strict bool
	files  []string // the ledger's modified and read files, as pathKey forms
}

// factsMatcher matches facts among which are the session's files.
func factsMatcher(facts []Fact, o MatchOptions) *matcher {
	m := &matcher{strict: o.Strict}
	for _, f := range facts {
		if f.Cat != Modified && f.Cat != Read {
			continue
		}
		if k, _ := pathKey(f.Text); k != "" {
			m.files = append(m.files, k)
		}
	}
	return m
}

// match tells how text holds each fact. The verbatim ones are found by containment; the others
// in one pass over the text's words for paths, URLs and ids, and one over its sentences for
// rules and requests, each looking only for what the remaining facts need (a tool output of
// many megabytes costs a scan, not an index of every word).
func (m *matcher) match(text string, facts []Fact) []How {
	out := make([]How, len(facts))
	if strings.TrimSpace(text) == "" {
		return out // a note's empty summary, say
	}
	n := norm(text)
	var toks, texts []int
	for i, f := range facts {
		verbatim := func() bool { return strings.Contains(n, norm(f.Text)) }
		switch {
		case m.strict, f.Cat == Error:
			if verbatim() {
				out[i] = Verbatim
			}
		case f.Cat.token() && oneWord(f.Text) && (f.Cat == Ref || !rootPath(f.Text)):
			toks = append(toks, i) // found verbatim or otherwise among the words
		case verbatim():
			out[i] = Verbatim // a path with spaces or quotes is not one word of the text; a root has no name
		case !f.Cat.token():
			texts = append(texts, i)
		}
	}
	if len(toks) > 0 {
		m.matchTokens(text, facts, toks, out)
	}
	if len(texts) > 0 {
		matchRestated(text, n, facts, texts, out)
	}
	return out
}

// better reports whether way h is a better finding than was (verbatim first).
func better(h, was How) bool { return h != Missing && (was == Missing || h < was) }

// tokenTarget is what a word of the text means for one fact when its key is looked up.
type tokenTarget struct {
	fact int
	kind uint8
}

// Kinds of tokenTarget.
const (
	wholePath  uint8 = iota // the word's path is the fact's path (or ends with it)
	pathSuffix              // the word is a part that ends the fact's path
	urlRef                  // the word is the fact's URL, written another way
	idRef                   // the word is the fact's id
	versionRef              // the word is the fact's version with or without its v
)

// matchTokens finds the path, URL and id facts of toks among the words of text.
func (m *matcher) matchTokens(text string, facts []Fact, toks []int, out []How) {
	lower := strings.ToLower(text)
	want, hexes := wantedWords(facts, toks)
	if len(want) == 0 {
		return
	}
	eachWord(lower, func(w string) {
		if u, ok := urlKey(w); ok {
			for _, t := range want[u] {
				if t.kind == urlRef && w == tokenKey(facts[t.fact].Text) {
					record(out, t.fact, Verbatim)
				} else if t.kind == urlRef {
					record(out, t.fact, SameRef)
				}
			}
			return
		}
		for _, t := range want[w] {
			switch t.kind {
			case idRef:
				record(out, t.fact, Verbatim)
			case versionRef:
				record(out, t.fact, SameRef)
			}
		}
		for _, i := range hexes {
			if h := tokenKey(facts[i].Text); len(w) >= 7 && isHex(w) && w != h && (strings.HasPrefix(h, w) || strings.HasPrefix(w, h)) {
				record(out, i, SameRef) // a hash and its short form
			}
		}
		m.pathWord(facts, out, want, w)
	})
}

// wantedWords is, for the path, URL and id facts of toks, the words (as keys) that would hold
// each, and the facts that are hashes (held by a prefix too).
func wantedWords(facts []Fact, toks []int) (map[string][]tokenTarget, []int) {
	want := map[string][]tokenTarget{}
	var hexes []int
	for _, i := range toks {
		f := facts[i].Text
		if facts[i].Cat == Ref {
			if u, ok := urlKey(tokenKey(f)); ok {
				want[u] = append(want[u], tokenTarget{i, urlRef})
				continue
			}
			t := tokenKey(f)
			want[t] = append(want[t], tokenTarget{i, idRef})
			if v, ok := strings.CutPrefix(t, "v"); ok && v != "" && v[0] >= '0' && v[0] <= '9' {
				want[v] = append(want[v], tokenTarget{i, versionRef})
			} else if t != "" && t[0] >= '0' && t[0] <= '9' {
				want["v"+t] = append(want["v"+t], tokenTarget{i, versionRef})
			}
			if isHex(t) && len(t) >= 7 {
				hexes = append(hexes, i)
			}
			continue
		}
		k, _ := pathKey(f)
		if k == "" {
			continue
		}
		want[k] = append(want[k], tokenTarget{i, wholePath})
		for j := 0; j < len(k); j++ {
			if k[j] == '/' {
				want[k[j+1:]] = append(want[k[j+1:]], tokenTarget{i, pathSuffix})
			}
		}
	}
	return want, hexes
}

// pathWord looks a word up as a path: the fact's path in full or another form, a longer path
// ending with it, or a part that ends it.
func (m *matcher) pathWord(facts []Fact, out []How, want map[string][]tokenTarget, w string) {
	k, stripped := pathKey(w)
	if k == "" {
		return
	}
	for _, t := range want[k] {
		switch t.kind {
		case wholePath:
			fk, fstripped := pathKey(facts[t.fact].Text)
			if w == tokenKey(facts[t.fact].Text) || !stripped && !fstripped && fk == k {
				record(out, t.fact, Verbatim)
			} else {
				record(out, t.fact, Relative) // ~/, ./, C: or \ forms of the same path
			}
		case pathSuffix:
			fk, _ := pathKey(facts[t.fact].Text)
			if !m.unique(fk, k) {
				continue
			}
			if strings.Contains(k, "/") {
				record(out, t.fact, Relative)
			} else if nameLike(k) {
				record(out, t.fact, Name)
			}
		}
	}
	for j := 0; j < len(k); j++ {
		if k[j] != '/' {
			continue
		}
		for _, t := range want[k[j+1:]] {
			if t.kind != wholePath {
				continue
			}
			fk, fstripped := pathKey(facts[t.fact].Text)
			if !m.unique(fk, fk) {
				continue
			}
			if fstripped {
				record(out, t.fact, Relative)
			} else {
				record(out, t.fact, Verbatim) // the fact's own path ends a longer one (relative in the fact, absolute in the text)
			}
		}
	}
}

// record records that fact i is held, in way h, unless it was found in a better way already.
func record(out []How, i int, h How) {
	if better(h, out[i]) {
		out[i] = h
	}
}

// eachWord calls fn with each word of a lower-cased text as a path, URL or id can be: cut at
// spaces, quotes, brackets and Markdown marks, without trailing punctuation or a :line suffix.
func eachWord(lower string, fn func(string)) {
	start := -1
	for i := 0; i < len(lower); {
		c, size := lower[i], 1
		sep := c < 0x80 && wordSep[c]
		if c >= 0x80 {
			var r rune
			r, size = utf8.DecodeRuneInString(lower[i:])
			sep = r == '\u201c' || r == '\u201d' || r == '\u2018' || r == '\u2019'
		}
		switch {
		case sep && start >= 0:
			if w := tokenKey(lower[start:i]); w != "" {
				fn(w)
			}
			start = -1
		case !sep && start < 0:
			start = i
		}
		i += size
	}
	if start >= 0 {
		if w := tokenKey(lower[start:]); w != "" {
			fn(w)
		}
	}
}

// wordSep marks the ASCII bytes that end a word for eachWord: spaces and controls, quotes,
// brackets, and Markdown's marks.
var wordSep = func() (t [0x80]bool) {
	for c := 0; c <= ' '; c++ {
		t[c] = true
	}
	for _, c := range "`\"'()[]{}<>,;|*" {
		t[c] = true
	}
	return t
}()

// rootPath reports whether a path names no file below a root ("/", "C:\\", "~/").
func rootPath(p string) bool {
	k, _ := pathKey(p)
	return k == ""
}

// oneWord reports whether a fact is one word as eachWord reads words, so that it is found as
// one.
func oneWord(f string) bool {
	lower := strings.ToLower(strings.TrimSpace(f))
	n, same := 0, false
	eachWord(lower, func(w string) {
		n++
		same = w == lower
	})
	return n == 1 && same
}

// tokenKey is a word as eachWord gives it.
func tokenKey(s string) string {
	s = strings.TrimRight(strings.ToLower(s), ".:!?")
	s = strings.TrimLeft(s, ":")
	// file.go:12 or file.go:12:3 names the file.
	for range 2 {
		if i := strings.LastIndexByte(s, ':'); i > 0 && i < len(s)-1 && allDigits(s[i+1:]) {
			s = s[:i]
		}
	}
	return s
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// pathKey is the form in which paths are compared: lower case, / as the separator, without a
// leading ~/, ./ or drive letter (home, working directory and volume are where a path starts,
// not which file it is). stripped tells whether such a start was taken off.
func pathKey(p string) (key string, stripped bool) {
	k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(p)), `\`, "/")
	if strings.Contains(k, "://") || strings.ContainsAny(k, " \t\n") {
		return "", false
	}
	orig := k
	if len(k) >= 2 && k[1] == ':' && 'a' <= k[0] && k[0] <= 'z' {
		k = k[2:]
	}
	for {
		switch {
		case strings.HasPrefix(k, "~/"):
			k = k[1:]
		case strings.HasPrefix(k, "./"):
			k = k[2:]
		case strings.HasPrefix(k, "//"):
			k = k[1:]
		default:
			k = strings.TrimPrefix(k, "/")
			return k, k != strings.TrimPrefix(orig, "/")
		}
	}
}

// unique reports whether no file of the session other than k (and the same file in a longer
// or shorter form) ends with suffix.
func (m *matcher) unique(k, suffix string) bool {
	for _, g := range m.files {
		if g == k || hasPathSuffix(k, g) || hasPathSuffix(g, k) {
			continue
		}
		if g == suffix || hasPathSuffix(g, suffix) {
			return false
		}
	}
	return true
}

// hasPathSuffix reports whether path p ends with the whole components s.
func hasPathSuffix(p, s string) bool {
	return len(p) > len(s) && strings.HasSuffix(p, s) && p[len(p)-len(s)-1] == '/'
}

// nameLike reports whether a base name reads as a file's name rather than a word: it has an
// extension or a mark (README.md, .gitignore, test_2), not plain letters (Makefile, build).
func nameLike(s string) bool {
	return strings.ContainsAny(s, "._-0123456789")
}

// urlKey is the form in which URLs are compared, when s is one: without the scheme, www., a
// trailing slash, the fragment (a place in the same page) and utm_ tracking parameters; the
// rest of the query names a different resource and is kept.
func urlKey(s string) (string, bool) {
	s = strings.ToLower(strings.TrimRight(s, ".,;:!?)]}'\""))
	i := strings.Index(s, "://")
	switch {
	case i > 0:
		s = s[i+3:]
	case strings.HasPrefix(s, "www."):
	default:
		// Scheme-less: a host with a dot and a path (github.com/ctxc/ctxc).
		slash := strings.IndexByte(s, '/')
		if slash <= 0 || !strings.Contains(s[:slash], ".") || strings.HasPrefix(s, ".") || !hostLike(s[:slash]) {
			return "", false
		}
	}
	s = strings.TrimPrefix(s, "www.")
	if j := strings.IndexByte(s, '#'); j >= 0 {
		s = s[:j]
	}
	if j := strings.IndexByte(s, '?'); j >= 0 {
		var keep []string
		for p := range strings.SplitSeq(s[j+1:], "&") {
			if p != "" && !strings.HasPrefix(p, "utm_") {
				keep = append(keep, p)
			}
		}
		s = s[:j]
		if len(keep) > 0 {
			s += "?" + strings.Join(keep, "&")
		}
	}
	s = strings.TrimRight(s, "/")
	return s, s != ""
}

// hostLike reports whether s reads as a host name (letters, digits, dots, dashes, a port),
// ending in a top-level domain of letters.
func hostLike(s string) bool {
	if i := strings.LastIndexByte(s, ':'); i > 0 && allDigits(s[i+1:]) {
		s = s[:i]
	}
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '.' || c == '-') {
			return false
		}
	}
	for i := dot + 1; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

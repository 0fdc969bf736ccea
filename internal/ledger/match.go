package ledger

import (
	"strings"
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

// MarshalText writes the way's name, for JSON.
func (h How) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

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
	m := factsMatcher(l.Facts(), o)
	idx := m.index(text)
	for c, facts := range l.ByCat {
		out[c] = make([]How, len(facts))
		for i, f := range facts {
			out[c][i] = m.how(Category(c), f, idx)
		}
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

// how is how the indexed text holds fact f of category c.
func (m *matcher) how(c Category, f string, idx *textIndex) How {
	if strings.Contains(idx.norm, norm(f)) && (m.strict || !c.token() || idx.tokens[tokenKey(f)] || strings.ContainsAny(f, " \t")) {
		return Verbatim
	}
	if m.strict {
		return Missing
	}
	switch c {
	case Modified, Read:
		return m.file(f, idx)
	case Ref:
		return ref(f, idx)
	case Rule, LastRequest, Request:
		return restated(c, f, idx)
	}
	return Missing
}

// textIndex is a text prepared for matching: its normalized form, the tokens it holds (paths,
// URLs, ids: lower case, trailing punctuation off), every component suffix of its path tokens,
// and its sentences' key terms.
type textIndex struct {
	norm      string
	tokens    map[string]bool
	paths     map[string]How // a path token's key and its component suffixes: Verbatim for whole tokens, Relative for suffixes
	urls      map[string]bool
	hexes     []string
	sentences []termSentence
	byTerm    map[string][]int
}

func (m *matcher) index(text string) *textIndex {
	idx := &textIndex{norm: norm(text), tokens: map[string]bool{}, paths: map[string]How{}, urls: map[string]bool{}}
	if m.strict {
		return idx
	}
	for _, tok := range splitTokens(text) {
		idx.tokens[tok] = true
		if u, ok := urlKey(tok); ok {
			idx.urls[u] = true
			continue
		}
		if isHex(tok) && len(tok) >= 7 {
			idx.hexes = append(idx.hexes, tok)
		}
		k, _ := pathKey(tok)
		if k == "" {
			continue
		}
		idx.paths[k] = Verbatim
		for i := 1; i < len(k); i++ {
			if k[i] == '/' && idx.paths[k[i+1:]] == Missing {
				idx.paths[k[i+1:]] = Relative
			}
		}
	}
	idx.indexSentences(text)
	return idx
}

// splitTokens cuts a text into the words a path, URL or id can be: at spaces, quotes,
// brackets and Markdown marks, lower-cased, without trailing punctuation or a :line suffix.
func splitTokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r <= ' ' || strings.ContainsRune("`\"'()[]{}<>,;|*\u201c\u201d\u2018\u2019", r)
	})
	out := fields[:0]
	for _, f := range fields {
		if f = tokenKey(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// tokenKey is a word as splitTokens keeps it.
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

// file is how the text holds a file of the session other than verbatim: by a path that ends
// the fact's (relative to the folder or project, or the whole path in another form), by a
// longer path ending with it (a relative fact, the text's path absolute), or by its base name.
// A partial path or name that another file of the session also ends with does not count.
func (m *matcher) file(f string, idx *textIndex) How {
	k, stripped := pathKey(f)
	if k == "" {
		return Missing
	}
	if h, ok := idx.paths[k]; ok {
		if h == Verbatim && stripped {
			return Relative // ~/, ./, C: or \ forms of the same path
		}
		switch {
		case h == Verbatim:
			return h
		case m.unique(k, k) && !stripped:
			return Verbatim // the fact's own path ends a longer one (relative in the fact, absolute in the text)
		case m.unique(k, k):
			return Relative
		}
	}
	for i := 0; i < len(k); i++ {
		if k[i] != '/' {
			continue
		}
		suffix := k[i+1:]
		if idx.paths[suffix] != Verbatim || !m.unique(k, suffix) {
			continue
		}
		if strings.Contains(suffix, "/") {
			return Relative
		}
		if nameLike(suffix) {
			return Name
		}
	}
	return Missing
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

// ref is how the text holds a URL or id other than verbatim: the same resource written
// another way.
func ref(f string, idx *textIndex) How {
	if u, ok := urlKey(tokenKey(f)); ok {
		if idx.urls[u] {
			return SameRef
		}
		return Missing
	}
	t := tokenKey(f)
	switch {
	case idx.tokens[t]:
		return SameRef // the same id, the text's trailing punctuation aside
	case strings.HasPrefix(t, "v") && len(t) > 1 && t[1] >= '0' && t[1] <= '9' && idx.tokens[t[1:]],
		t != "" && t[0] >= '0' && t[0] <= '9' && idx.tokens["v"+t]:
		return SameRef // v1.2.3 and 1.2.3
	case isHex(t) && len(t) >= 7:
		for _, h := range idx.hexes {
			if strings.HasPrefix(t, h) || strings.HasPrefix(h, t) {
				return SameRef // a hash and its short form
			}
		}
	}
	return Missing
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

// Package ledger builds a fact ledger from the middle zone of a transcript and audits summaries
// against it, so that what users lose in compaction (the files the agent changed, the rules the
// user set, the last thing the user asked, the URLs and ids they gave) survives whatever the
// summarizer writes.
//
// The ledger is made by code, not by a model: Build reads the summarizer's input items (tool
// calls, user messages, earlier summaries) and extracts facts per category. Audit then checks the
// summary for each fact and appends the missing ones verbatim in a fixed closing section, within
// the summary's token target (by priority when the ledger alone would not fit). Earlier summaries
// in the middle are inputs too: their closing sections, and the facts a summarizer kept in the
// recognized form, are read back, so facts survive repeated compaction.
//
// The package imports neither cobra nor viper.
package ledger

import (
	"strings"
	"unicode"
)

// Category is a kind of fact. The order of the constants is the audit's priority order: when the
// ledger does not fit the target, later categories are left out first.
type Category uint8

// Categories, in priority order.
const (
	Rule        Category = iota // a user message that states a rule or preference, verbatim
	LastRequest                 // the last user request, verbatim
	Modified                    // a file an edit/write/patch tool call or a writing shell command changed
	Ref                         // a URL, id or version the user wrote
	Request                     // an earlier user request, verbatim (newest first)
	Error                       // an error still unresolved where the middle ends
	Read                        // a file a read tool read (bounded)
	NumCategories
)

var categoryNames = [NumCategories]string{"rules", "last_request", "files_modified", "refs", "requests", "errors", "files_read"}

// String is the category's name in JSON output.
func (c Category) String() string {
	if c < NumCategories {
		return categoryNames[c]
	}
	return "unknown"
}

// Title is the heading of the category in the carried section of a summary.
func (c Category) Title() string {
	switch c {
	case Rule:
		return "User rules"
	case LastRequest:
		return "Last user request"
	case Modified:
		return "Files modified"
	case Ref:
		return "URLs, ids and versions"
	case Request:
		return "User requests"
	case Error:
		return "Unresolved errors"
	case Read:
		return "Files read"
	}
	return "Other"
}

// token reports whether facts of the category are single tokens (paths, URLs, ids) rather than
// free text.
func (c Category) token() bool { return c == Modified || c == Read || c == Ref }

// Fact is one thing the compacted context must keep.
type Fact struct {
	Cat  Category
	Text string
}

// Ledger is the facts of one middle zone, per category in the order Audit carries them (rules
// and files chronologically, requests newest first).
type Ledger struct {
	ByCat [NumCategories][]string
	// Lines holds, beside each fact of ByCat, the source line it was last seen on (0: unknown;
	// a fact read back from an earlier summary has the summary's line).
	Lines [NumCategories][]int
}

// Len is the number of facts.
func (l *Ledger) Len() int {
	if l == nil {
		return 0
	}
	n := 0
	for _, fs := range l.ByCat {
		n += len(fs)
	}
	return n
}

// Line is the source line of fact i of category c (0: unknown).
func (l *Ledger) Line(c Category, i int) int {
	if i < len(l.Lines[c]) {
		return l.Lines[c][i]
	}
	return 0
}

// Facts lists every fact in priority order.
func (l *Ledger) Facts() []Fact {
	if l == nil {
		return nil
	}
	var out []Fact
	for c, fs := range l.ByCat {
		for _, f := range fs {
			out = append(out, Fact{Cat: Category(c), Text: f})
		}
	}
	return out
}

// norm is the form in which facts are compared: lower case, whitespace runs as one space,
// trimmed, without Markdown emphasis and code marks and with typographic quotes made plain.
func norm(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch r {
		case '`', '*':
			continue
		case '\u201c', '\u201d':
			r = '"'
		case '\u2018', '\u2019':
			r = '\''
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Package memory turns what users keep telling their agents into a memory file (ctxc memory):
// the rules and preferences a user states, the constraints they set, the decisions taken with
// their reason, the commands that build and test the project and the files that change most,
// across every session given. The same statement made in five sessions is one entry with its
// count, its last date and its sources (file and line); a statement the user later reversed is
// marked superseded by the newer one.
//
// Extraction is code, not a model: rules come from the ledger's cues (package ledger) applied to
// what the user typed, commands and files from the agent's tool calls. An optional pass through
// a summarizer may merge and phrase entries, and code checks each phrased entry against the
// entries it cites (Phrase), so no entry is ever without a source line.
//
// The markdown form lives in a section of a memory file (CLAUDE.md, AGENTS.md) between two
// markers that ctxc owns (Update): the user's own text around it is never changed, and the
// section read back is merged with the sessions read now, so what was learned outlives the
// sessions the agents delete.
//
// The package imports neither cobra nor viper.
package memory

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// Kind is what an entry is. The order of the constants is the order of the sections.
type Kind uint8

// Kinds.
const (
	Rule       Kind = iota // a rule or preference the user stated
	Constraint             // a prohibition the user stated (never, don't, must not)
	Decision               // a decision and its reason, said by the user or the agent
	Command                // a shell command that builds, tests or checks the project
	File                   // a file the agent changed
	numKinds
)

var kindNames = [numKinds]string{"rule", "constraint", "decision", "command", "file"}

var kindTitles = [numKinds]string{"Rules and preferences", "Constraints", "Decisions", "Commands that build and test", "Files changed most"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// Title is the heading of the kind's section.
func (k Kind) Title() string {
	if k < numKinds {
		return kindTitles[k]
	}
	return "Other"
}

// MarshalJSON writes the kind's name.
func (k Kind) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// UnmarshalJSON reads a kind's name.
func (k *Kind) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for i, n := range kindNames {
		if n == s {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown memory kind %q", s)
}

// statement reports whether entries of the kind are sentences (rather than commands or paths).
func (k Kind) statement() bool { return k == Rule || k == Constraint || k == Decision }

// Source is where an entry was said or done.
type Source struct {
	Path string    `json:"path"`
	Line int       `json:"line"`
	Time time.Time `json:"time,omitzero"` // the record's timestamp (zero: the record has none)
}

// Superseder is the newer statement that reversed an entry.
type Superseder struct {
	Text   string `json:"text"`
	Source Source `json:"source"`
}

// Entry is one durable fact.
type Entry struct {
	Kind     Kind      `json:"kind"`
	Text     string    `json:"text"`
	Count    int       `json:"count"`    // times said or done
	Sessions int       `json:"sessions"` // files it was seen in
	Last     time.Time `json:"last,omitzero"`
	// Sources are where it was seen, newest first, at most MaxSources of them.
	Sources    []Source    `json:"sources"`
	Superseded *Superseder `json:"superseded_by,omitempty"`
	key        string
}

// MaxSources bounds the sources kept per entry: a command run a thousand times keeps its newest.
const MaxSources = 3

// Memory is the entries of a set of sessions, by kind in section order, each kind ranked.
type Memory struct {
	Entries []Entry
	Files   int   // session files read
	Bytes   int64 // bytes read
}

// newer orders sources newest first: by time, then by file and line.
func newer(a, b Source) int {
	if c := b.Time.Compare(a.Time); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Path, a.Path); c != 0 {
		return c
	}
	return cmp.Compare(b.Line, a.Line)
}

// rank orders the entries of a section: the most said first, then the newest, then by text.
func rank(a, b Entry) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if (a.Superseded == nil) != (b.Superseded == nil) {
		if a.Superseded == nil {
			return -1
		}
		return 1
	}
	if a.Kind == File {
		if c := cmp.Compare(b.Sessions, a.Sessions); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	if c := b.Last.Compare(a.Last); c != 0 {
		return c
	}
	return cmp.Compare(a.Text, b.Text)
}

// sourceName is how a source's file is written in the markdown form: its base name (agents name
// session files by a unique id).
func sourceName(p string) string { return filepath.Base(p) }

// addSources merges sources, newest first, without repeating one, at most MaxSources.
func addSources(dst []Source, src ...Source) []Source {
	for _, s := range src {
		dup := false
		for _, d := range dst {
			if sourceName(d.Path) == sourceName(s.Path) && d.Line == s.Line {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, s)
		}
	}
	slices.SortStableFunc(dst, newer)
	if len(dst) > MaxSources {
		dst = dst[:MaxSources]
	}
	return dst
}

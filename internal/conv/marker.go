package conv

import (
	"bytes"
	"encoding/json"
)

// MarkerMeta is the "ctxc" object of a marker line (docs/design.md §6): where the summary came from
// and how it was made.
type MarkerMeta struct {
	V            int          `json:"v"`
	Created      string       `json:"created"`
	Provider     string       `json:"provider"`
	Model        string       `json:"model,omitempty"`
	Prompt       string       `json:"prompt"`
	Source       MarkerSource `json:"source"`
	TokensBefore int          `json:"tokens_before"`
	TokensAfter  int          `json:"tokens_after"`
	Estimator    string       `json:"estimator"`
	Fallback     string       `json:"fallback"`
	Chunks       int          `json:"chunks"`
	// TailLines is how many lines right after the marker are verbatim copies of the protected
	// tail appended to the same file, so that statistics do not count them twice as history
	// (0 in a file written with -o, where those lines are the file's own).
	TailLines int  `json:"tail_lines"`
	Redacted  bool `json:"redacted,omitempty"`
	// Format and file of the source when the marker was written by compact -o from another file.
	SourceFormat string `json:"source_format,omitempty"`
	// Tier of the compaction (normal, aggressive, emergency) and, for an emergency one, the
	// blocks it cut in the kept messages (the whole texts stay at the lines named).
	Tier string `json:"tier,omitempty"`
	Cuts []Cut  `json:"cuts,omitempty"`
	// Ledger is the audit of the summary against the fact ledger of the summarized messages
	// (package ledger): facts found, present in the summary as written, carried verbatim by the
	// audit, dropped for space.
	Ledger *LedgerCounts `json:"ledger,omitempty"`
}

// LedgerCounts are the counts of a summary's audit.
type LedgerCounts struct {
	Facts   int `json:"facts"`
	Present int `json:"present"`
	Carried int `json:"carried"`
	Dropped int `json:"dropped"`
}

// MarkerSource identifies the summarized lines.
type MarkerSource struct {
	FromLine int    `json:"from_line"`
	ToLine   int    `json:"to_line"`
	SHA256   string `json:"sha256"`
	// Path is the file the lines are in, when it is not the file of the marker (a file that
	// compact -o wrote from another): expand reads the span there.
	Path string `json:"path,omitempty"`
}

// Cut is one block an emergency compaction shortened.
type Cut struct {
	Line        int    `json:"line"` // file line of the message that holds the whole text
	Kind        string `json:"kind"` // tool_result or tool_call
	ID          string `json:"id,omitempty"`
	CharsBefore int    `json:"chars_before"`
	CharsAfter  int    `json:"chars_after"`
	Msg, Block  int    `json:"-"` // where the block is in the context (not recorded)
}

// Marker is a ctxc (or crabtalk) compaction marker line.
type Marker struct {
	Compact string            `json:"compact"`
	Head    []json.RawMessage `json:"head"`
	Ctxc    *MarkerMeta       `json:"ctxc,omitempty"`
}

// Encode renders the marker as one JSON line (with its newline), without HTML escaping.
func (m *Marker) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package transcript

import (
	"github.com/ctxc/ctxc/internal/safewrite"
)

// opencodeWriter: opencode keeps its sessions in its SQLite store, which ctxc never writes into,
// so there is nothing to append to (a session is compacted with -o, on its export). A new file
// is a ctxc-format file (a marker that holds the head and the summary, then the tail): opencode's
// own import (`opencode import FILE`) takes one JSON document of a session and its messages,
// which ctxc does not write yet.
// Kilo's sessions, in its store of opencode's schema, are written alike.
type opencodeWriter struct{ format Format }

func (w opencodeWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	what := "an opencode session"
	if w.format == FormatKilo {
		what = "a Kilo session"
	}
	return Written{}, &safewrite.ReadOnlyError{Path: src.Path, Reason: "is " + what + ", which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

func (w opencodeWriter) New(src *Source, c *Compaction) (Written, error) {
	return markerWriter{source: w.format}.New(src, c)
}

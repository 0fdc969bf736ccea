// Package expand owns getting back the original messages a compaction replaced: Spans lists the
// compactions of a file (where the format's reader finds them), and At returns the messages one
// replaced, read from the file (where they stay): for a compaction ctxc wrote, the span its
// provenance names, checked against the digest it recorded; for the agent's own, the messages of
// the context before it that the context after it no longer holds.
package expand

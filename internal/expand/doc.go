// Package expand owns getting back the original messages a compaction replaced: Spans lists the
// compactions of a file with the span of lines each summarized, and At returns the messages of
// one span, read from the file (where they stay) and checked against the digest the compaction
// recorded.
package expand

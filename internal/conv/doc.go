// Package conv is the conversation model and the reader API that an agent's code is written
// against: messages and their blocks, the statistics of a file and the accumulators a reader
// calls (Stats), the record of one line (Record), the scanned line a reader is given (Line),
// the refs it keeps to read its context back (Ref, RefOf), the text modes and block builders, and
// what a compaction writer is given (Writer, Source, Compaction, Written, Object).
//
// An agent's package (internal/agent/<agent>) imports conv and never internal/transcript, which
// imports both: transcript scans, detects and loads, and names each agent's constructors in its
// agentCodes table.
package conv

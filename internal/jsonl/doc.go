// Package jsonl owns the JSON machinery ctxc reads transcripts with: the line reader (lines of
// any length with bounded memory, a BOM, CRLF, a line cap, an unterminated last line held back),
// the validator (Valid), a scanner over one JSON value that copies nothing (Value), and the
// escaping and unescaping of JSON strings (Unescape, Quote). It knows nothing of any agent's
// format: the transcript readers build on it.
package jsonl

package conv

// Record is what one line of a transcript adds to the conversation history, decoded with its
// text, for searches of the whole history (ctxc grep) and checks of a file line by line. It
// says the same as the format readers do about a line seen on its own: copies of earlier
// Records (a ctxc marker's head, the items a Codex replacement_history carries over) are not
// new history and are left out; a compaction's summary is.
type Record struct {
	Messages []Message // new conversation messages of the line, with their text and Line set
	// Compaction is set when the line is a compaction record: a ctxc marker, a Claude Code
	// compact_boundary, a Codex compacted item, a pi compaction entry.
	Compaction bool
	// Meta is ctxc's provenance on a compaction record that ctxc wrote (nil otherwise, or when
	// it cannot be read).
	Meta *MarkerMeta
	// TailLines, for a ctxc marker, is how many lines right after it copy the kept tail.
	TailLines int
	// Sidechain: a subagent's record (Claude Code isSidechain:true, a Copilot CLI subagent's
	// event). Its messages are in Messages: they are the whole conversation of a subagent
	// file, which grep and search read as the history the file holds; a caller that wants only
	// what the user and the main agent said (memory) leaves them out.
	Sidechain bool
}

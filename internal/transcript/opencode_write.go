package transcript

// opencode keeps its sessions in its SQLite store, which ctxc never writes into, so there is
// nothing to append to (a session is compacted with -o, on its export, by a readOnlyWriter). A
// new file is a ctxc-format file (a marker that holds the head and the summary, then the tail):
// opencode's own import (`opencode import FILE`) takes one JSON document of a session and its
// messages, which ctxc does not write yet. Kilo's sessions, in its store of opencode's schema,
// are written alike.
const (
	opencodeReadOnly = "is an opencode session, which ctxc only reads"
	kiloReadOnly     = "is a Kilo session, which ctxc only reads"
)

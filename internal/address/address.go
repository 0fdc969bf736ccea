// Package address is what a command's PATH argument names, as one value: a session file ctxc
// reads and writes as it is, a session archived by `ctxc archive` (zstd), a session its agent
// rewrites whole (Continue CLI's), one session of an agent's SQLite store (STORE#SESSION-ID), or
// a file read as its JSONL export (Aider's chat history, an OpenHands conversation). Parse tells
// which; Open and Stat read it as every reader does (transcript.OpenFile, transcript.Stat);
// Writable says whether a command may write into it, or why not, as the one read-only error
// (safewrite.ReadOnlyError, exit 2); WriteExported runs a command that writes on the export of a
// session ctxc only reads. Expander turns arguments (files, folders, patterns, stores) into
// addresses, for the command line and for the MCP server's tools alike.
package address

import (
	"errors"
	"io/fs"
	"os"

	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Kind is what an address names.
type Kind int

const (
	// File is a session file (or anything else at a path: a folder, a missing file), read and
	// written as it is; opening it says what is wrong with it.
	File Kind = iota
	// Archive is a session archived by `ctxc archive`: a file that starts with zstd's magic
	// number, read decompressed, never written.
	Archive
	// Snapshot is a session its agent rewrites whole (Continue CLI's), read as a snapshot and
	// never written in place.
	Snapshot
	// StoreSession is STORE#SESSION-ID, one session of an agent's SQLite store (OpenClaw,
	// opencode, Kilo Code's CLI), read as its export; the store is never written.
	StoreSession
	// Converted is a file read as its JSONL export (Aider's chat history, an OpenHands
	// conversation), never written.
	Converted
)

var kindNames = [...]string{File: "file", Archive: "archive", Snapshot: "snapshot", StoreSession: "store session", Converted: "converted"}

func (k Kind) String() string { return kindNames[k] }

// Address is a session as a command names it.
type Address struct {
	Name string // as given: a path, or STORE#SESSION-ID
	Kind Kind
}

// Parse tells what name names. A file whose name contains # is a file (only a name that is no
// file, whose part before the last # is an agent's store, is a store's session); a file that
// cannot be read, and anything but a regular file (a folder, a FIFO: never opened here, as
// opening a FIFO waits for a writer), is a File (opening it says why).
func Parse(name string) Address {
	switch {
	case sessionstore.IsStoreSession(name):
		return Address{name, StoreSession}
	case sessionstore.IsConverted(name):
		return Address{name, Converted}
	}
	if info, err := os.Stat(name); err != nil || !info.Mode().IsRegular() {
		return Address{name, File}
	}
	switch {
	case transcript.IsCompressed(name):
		return Address{name, Archive}
	case transcript.IsSnapshot(name):
		return Address{name, Snapshot}
	}
	return Address{name, File}
}

// Exported reports whether the address is read as an export (a store's session, a converted
// file): its text is not the bytes of a file at its name.
func (a Address) Exported() bool { return a.Kind == StoreSession || a.Kind == Converted }

// Open opens the session for reading, as every reader of sessions does.
func (a Address) Open() (*transcript.File, error) { return transcript.OpenFile(a.Name) }

// Stat states the session as Open would open it.
func (a Address) Stat() (fs.FileInfo, error) { return transcript.Stat(a.Name) }

// Writable is nil when a command may write into the session in place, else the reason it may
// not, a *safewrite.ReadOnlyError: an archive (hint says what to do instead, such as "use -o FILE
// to write a compacted copy"), a snapshot, a store's session or a converted file (each with its
// agent's reason and hint).
func (a Address) Writable(hint string) error {
	switch a.Kind {
	case Archive:
		return transcript.ArchivedReadOnly(a.Name, hint)
	case Snapshot:
		return transcript.SnapshotReadOnly(a.Name)
	case StoreSession, Converted:
		return sessionstore.ReadOnly(a.Name)
	}
	return nil
}

// WriteExported runs a command that writes (compact, repair) on a session read as its export,
// which is never written: in place (inPlace) is its read-only error (Writable); else the
// command runs on the export written as a private temporary file, removed after, and its
// result goes to output ("" for none, as for a dry run), which must not be the session's own
// files (without force, not an existing file). A data error the command finds in the temporary
// file names the session.
func (a Address) WriteExported(inPlace bool, output string, force bool, run func(tmp string) error) error {
	return sessionstore.RunExported(a.Name, inPlace, output, force, func(tmp string) error {
		err := run(tmp)
		if de, ok := errors.AsType[*transcript.DataError](err); ok && de.Path == tmp {
			c := *de
			c.Path = a.Name
			return &c
		}
		return err
	})
}

// Package sessionstore is where the commands meet the sessions that ctxc reads through an
// export rather than as the files they are: the sessions of an agent's SQLite store, each named
// STORE#SESSION-ID (OpenClaw: internal/agent/pi/openclawstore; opencode and Kilo Code's CLI:
// internal/agent/opencode/opencodestore; Goose: internal/agent/goose/goosestore), and the session files that are not JSON
// lines, each named by its path (Aider's Markdown chat history: internal/agent/aider/aiderhist; an
// OpenHands conversation: internal/agent/openhands/openhandsconv; a Cline CLI session: internal/agent/cline/clinesess; a
// task of Cline's extension, Cline CLI 2.x, Kilo Code's extension or Roo Code:
// internal/agent/clinetask/clinetask; a Nanocoder session: internal/agent/nanocoder/nanocodersess; SWE-agent's and mini-swe-agent's trajectories:
// internal/agent/sweagent/sweagenttraj, internal/agent/miniswe/miniswetraj; an opencode session document, what `opencode import`
// takes in: internal/agent/opencode/opencodestore). Each is opened as a file that no other program
// sees, in the format its package exports, and never written. An agent's package describes its
// sessions as a Store or a Source, and is one line of stores or converted below; every function
// here asks the one the name belongs to.
package sessionstore

import (
	"io/fs"
	"os"

	"github.com/ctxc/ctxc/internal/agent/aider/aiderhist"
	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/agent/clinetask/clinetask"
	"github.com/ctxc/ctxc/internal/agent/goose/goosestore"
	"github.com/ctxc/ctxc/internal/agent/miniswe/miniswetraj"
	"github.com/ctxc/ctxc/internal/agent/nanocoder/nanocodersess"
	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agent/openhands/openhandsconv"
	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/agent/sweagent/sweagenttraj"
)

// A Source is an agent's kind of session that ctxc reads as its export.
type Source interface {
	// Owns reports whether name addresses one of its sessions.
	Owns(name string) bool
	// ReadOnly is the error of a command that would write into the session: ctxc only reads
	// it. It says which agent's session it is and what to do instead.
	ReadOnly(name string) error
	// OpenSession exports the session into an open file positioned at its start.
	OpenSession(name string) (*os.File, fs.FileInfo, error)
	// StatSession states the session as OpenSession would open it.
	StatSession(name string) (fs.FileInfo, error)
	// RunExported runs a command that writes (compact, repair) on the session: in place is
	// the ReadOnly error; the command runs on the session exported as a temporary file.
	RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error
	// FoundInWalk says whether a file met in a directory walk (path, its base name) is read
	// as its sessions.
	FoundInWalk(path, name string) bool
	// DefaultPaths lists where the agent keeps them, for search's defaults.
	DefaultPaths() []string
}

// A Store is a Source whose sessions are in an SQLite file, each named STORE#SESSION-ID.
type Store interface {
	Source
	// NamedAsStore reports whether path has a store's name: only such a file is opened to be
	// checked by IsStoreFile.
	NamedAsStore(path string) bool
	// IsStoreFile reports whether path is a store.
	IsStoreFile(path string) bool
	// ListSessions opens a store and lists its sessions' names.
	ListSessions(path string) ([]string, error)
}

// stores are the agents' SQLite stores, one line an agent. OpenClaw's, first, answers for a
// name that none owns (its errors name the session).
var stores = []Store{
	openclawstore.Sessions,
	opencodestore.Opencode,
	opencodestore.Kilo,
	goosestore.Sessions,
}

// converted are the agents' session files read as their exports, one line an agent.
var converted = []Source{
	aiderhist.Files,
	openhandsconv.Files,
	clinesess.Files,
	clinetask.Files,
	nanocodersess.Files,
	sweagenttraj.Files,
	miniswetraj.Files,
	opencodestore.Documents,
}

// IsSessionName reports whether name addresses one session of a store, or a file read as its
// export (IsStoreSession or IsConverted).
func IsSessionName(name string) bool {
	return IsStoreSession(name) || IsConverted(name)
}

// IsStoreSession reports whether name is STORE#SESSION-ID, one session of an agent's SQLite store.
func IsStoreSession(name string) bool {
	for _, s := range stores {
		if s.Owns(name) {
			return true
		}
	}
	return false
}

// IsConverted reports whether name is a file read as its JSONL export.
func IsConverted(name string) bool {
	for _, s := range converted {
		if s.Owns(name) {
			return true
		}
	}
	return false
}

// sourceOf is the Source that owns name: a converted file's, a store's, else OpenClaw's, whose
// errors say that no such session is found.
func sourceOf(name string) Source {
	for _, s := range converted {
		if s.Owns(name) {
			return s
		}
	}
	for _, s := range stores {
		if s.Owns(name) {
			return s
		}
	}
	return stores[0]
}

// ReadOnly is the error of a command that would write into a session IsSessionName names: ctxc
// only reads it. It says which agent's session it is and what to do instead.
func ReadOnly(name string) error { return sourceOf(name).ReadOnly(name) }

// OpenSession exports one session into an open file positioned at its start.
func OpenSession(name string) (*os.File, fs.FileInfo, error) { return sourceOf(name).OpenSession(name) }

// StatSession states a session as OpenSession would open it.
func StatSession(name string) (fs.FileInfo, error) { return sourceOf(name).StatSession(name) }

// RunExported runs a command that writes (compact, repair) on a session of a store, which ctxc
// never writes into: in place is a ReadOnly error; the command runs on the session exported as a
// temporary file.
func RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	return sourceOf(name).RunExported(name, inPlace, output, force, run)
}

// NamedAsStore reports whether path has the name of a store: only such a file is opened to be
// checked by IsStoreFile.
func NamedAsStore(path string) bool {
	for _, s := range stores {
		if s.NamedAsStore(path) {
			return true
		}
	}
	return false
}

// FoundInWalk says whether a file met in a directory walk (path, its base name) is read through
// an export: a store, or an agent's session file that is not JSON lines.
func FoundInWalk(path, name string) bool {
	for _, s := range converted {
		if s.FoundInWalk(path, name) {
			return true
		}
	}
	for _, s := range stores {
		if s.FoundInWalk(path, name) {
			return true
		}
	}
	return false
}

// DefaultPaths lists where the agents keep their stores and such files, as far as their
// packages know (search's defaults add the registry's session folders).
func DefaultPaths() []string {
	var out []string
	for _, s := range stores {
		out = append(out, s.DefaultPaths()...)
	}
	for _, s := range converted {
		out = append(out, s.DefaultPaths()...)
	}
	return out
}

// IsStoreFile reports whether path is a store.
func IsStoreFile(path string) bool { return storeOf(path) != nil }

// storeOf is the store path is a file of, nil when none.
func storeOf(path string) Store {
	for _, s := range stores {
		if s.IsStoreFile(path) {
			return s
		}
	}
	return nil
}

// ListSessions opens a store and lists its sessions' names.
func ListSessions(path string) ([]string, error) {
	if s := storeOf(path); s != nil {
		return s.ListSessions(path)
	}
	return stores[0].ListSessions(path)
}

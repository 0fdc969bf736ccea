// Package sessionstore is where the commands meet the agents that keep their sessions in an
// SQLite store rather than in files: OpenClaw (internal/openclawstore), opencode and Kilo Code's
// CLI (internal/opencodestore), Goose (internal/goosestore). A store stands for its sessions, each named STORE#SESSION-ID and
// opened as a file that no other program sees, in the format its store's package exports; each
// function here asks the store package the name belongs to. Aider's chat history
// (internal/aiderhist), a Markdown file, is read the same way: its path names it, and it opens
// as its JSONL export, never written; so is an OpenHands conversation (internal/openhandsconv),
// named by its base_state.json, a Cline session (internal/clinesess), named by its
// <id>.messages.json, and a Nanocoder session (internal/nanocodersess), named by its <id>.json.
package sessionstore

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxc/ctxc/internal/aiderhist"
	"github.com/ctxc/ctxc/internal/clinesess"
	"github.com/ctxc/ctxc/internal/clinetask"
	"github.com/ctxc/ctxc/internal/goosestore"
	"github.com/ctxc/ctxc/internal/nanocodersess"
	"github.com/ctxc/ctxc/internal/openclawstore"
	"github.com/ctxc/ctxc/internal/opencodestore"
	"github.com/ctxc/ctxc/internal/openhandsconv"
)

// opencodeKinds are the agents whose stores have opencode's schema.
var opencodeKinds = []*opencodestore.Agent{opencodestore.Opencode, opencodestore.Kilo}

// opencodeKindOf is the agent of opencode's schema whose store holds the session name names.
func opencodeKindOf(name string) *opencodestore.Agent {
	for _, a := range opencodeKinds {
		if a.IsSessionName(name) {
			return a
		}
	}
	return nil
}

// IsSessionName reports whether name addresses one session of a store, or a file read as its
// export (IsStoreSession or IsConverted).
func IsSessionName(name string) bool {
	return IsStoreSession(name) || IsConverted(name)
}

// IsStoreSession reports whether name is STORE#SESSION-ID, one session of an agent's SQLite store.
func IsStoreSession(name string) bool {
	return openclawstore.IsSessionName(name) || opencodeKindOf(name) != nil || goosestore.IsSessionName(name)
}

// IsConverted reports whether name is a file read as its JSONL export: Aider's chat history, an
// OpenHands conversation, a Cline CLI session, a task of Cline's extension or its descendants, a
// Nanocoder session.
func IsConverted(name string) bool {
	return aiderhist.IsHistory(name) || openhandsconv.IsConversation(name) || clinesess.IsSession(name) ||
		clinetask.IsTask(name) || nanocodersess.IsSession(name)
}

// ReadOnly is the error of a command that would write into a session IsSessionName names: ctxc
// only reads it. It says which agent's session it is and what to do instead.
func ReadOnly(name string) error {
	if openhandsconv.IsConversation(name) {
		return openhandsconv.ReadOnly(name)
	}
	if aiderhist.IsHistory(name) {
		return aiderhist.ReadOnly(name)
	}
	if clinesess.IsSession(name) {
		return clinesess.ReadOnly(name)
	}
	if clinetask.IsTask(name) {
		return clinetask.ReadOnly(name)
	}
	if nanocodersess.IsSession(name) {
		return nanocodersess.ReadOnly(name)
	}
	if a := opencodeKindOf(name); a != nil {
		return a.ReadOnly(name)
	}
	if goosestore.IsSessionName(name) {
		return goosestore.ReadOnly(name)
	}
	return openclawstore.ReadOnly(name)
}

// OpenSession exports one session of a store into an open file positioned at its start.
func OpenSession(name string) (*os.File, fs.FileInfo, error) {
	if openhandsconv.IsConversation(name) {
		return openhandsconv.OpenSession(name)
	}
	if clinesess.IsSession(name) {
		return clinesess.OpenSession(name)
	}
	if clinetask.IsTask(name) {
		return clinetask.OpenSession(name)
	}
	if nanocodersess.IsSession(name) {
		return nanocodersess.OpenSession(name)
	}
	if aiderhist.IsHistory(name) {
		return aiderhist.OpenSession(name)
	}
	if a := opencodeKindOf(name); a != nil {
		return a.OpenSession(name)
	}
	if goosestore.IsSessionName(name) {
		return goosestore.OpenSession(name)
	}
	return openclawstore.OpenSession(name)
}

// StatSession states a session as OpenSession would open it.
func StatSession(name string) (fs.FileInfo, error) {
	if openhandsconv.IsConversation(name) {
		return openhandsconv.StatSession(name)
	}
	if clinesess.IsSession(name) {
		return clinesess.StatSession(name)
	}
	if clinetask.IsTask(name) {
		return clinetask.StatSession(name)
	}
	if nanocodersess.IsSession(name) {
		return nanocodersess.StatSession(name)
	}
	if aiderhist.IsHistory(name) {
		return aiderhist.StatSession(name)
	}
	if a := opencodeKindOf(name); a != nil {
		return a.StatSession(name)
	}
	if goosestore.IsSessionName(name) {
		return goosestore.StatSession(name)
	}
	return openclawstore.StatSession(name)
}

// RunExported runs a command that writes (compact, repair) on a session of a store, which ctxc
// never writes into: in place is a ReadOnly error; the command runs on the session exported as a
// temporary file.
func RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	if openhandsconv.IsConversation(name) {
		return openhandsconv.RunExported(name, inPlace, output, force, run)
	}
	if clinesess.IsSession(name) {
		return clinesess.RunExported(name, inPlace, output, force, run)
	}
	if clinetask.IsTask(name) {
		return clinetask.RunExported(name, inPlace, output, force, run)
	}
	if nanocodersess.IsSession(name) {
		return nanocodersess.RunExported(name, inPlace, output, force, run)
	}
	if aiderhist.IsHistory(name) {
		return aiderhist.RunExported(name, inPlace, output, force, run)
	}
	if a := opencodeKindOf(name); a != nil {
		return a.RunExported(name, inPlace, output, force, run)
	}
	if goosestore.IsSessionName(name) {
		return goosestore.RunExported(name, inPlace, output, force, run)
	}
	return openclawstore.RunExported(name, inPlace, output, force, run)
}

// NamedAsStore reports whether path has the name of a store: only such a file is opened to be
// checked by IsStoreFile.
func NamedAsStore(path string) bool {
	if openclawstore.NamedAsStore(path) || goosestore.NamedAsStore(path) {
		return true
	}
	for _, a := range opencodeKinds {
		if a.NamedAsStore(path) {
			return true
		}
	}
	return false
}

// FoundAsStore reports whether a file named name, met in a walk, is a store's: OpenClaw's
// openclaw-agent.sqlite, opencode's opencode.db, Kilo's kilo.db. Goose's sessions.db, a name
// other agents give their databases too, is FoundAsGooseStore.
func FoundAsStore(name string) bool {
	if name == openclawstore.FileName || aiderhist.Named(name) {
		return true
	}
	for _, a := range opencodeKinds {
		if a.NamedAsStore(filepath.Base(name)) {
			return true
		}
	}
	return false
}

// FoundAsGooseStore reports whether a file met in a walk (path, its base name) is Goose's store:
// named sessions.db and holding Goose's tables.
func FoundAsGooseStore(path, name string) bool {
	return name == goosestore.FileName && goosestore.IsStoreFile(path)
}

// IsStoreFile reports whether path is a store.
func IsStoreFile(path string) bool {
	if openclawstore.IsStoreFile(path) || goosestore.IsStoreFile(path) {
		return true
	}
	for _, a := range opencodeKinds {
		if a.IsStoreFile(path) {
			return true
		}
	}
	return false
}

// ListSessions opens a store and lists its sessions' names.
func ListSessions(path string) ([]string, error) {
	for _, a := range opencodeKinds {
		if a.IsStoreFile(path) {
			return a.ListSessions(path)
		}
	}
	if goosestore.IsStoreFile(path) {
		return goosestore.ListSessions(path)
	}
	return openclawstore.ListSessions(path)
}

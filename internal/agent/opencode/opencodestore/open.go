package opencodestore

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
)

// Agent is an agent whose store has opencode's schema: opencode, or its descendant Kilo Code's
// CLI (kilo), which keeps opencode's session, message and part tables and its reload rule. Its
// sessions are read alike; each line of an export of Kilo's names its agent ("agent":"kilo"), so
// that the readers tell its sessions from opencode's.
type Agent struct {
	Name     string // the agent, as the registry names it (internal/agent)
	Dir      string // its data folder's name, in XDG_DATA_HOME
	FileName string // its store's name, in its data folder
	line     string // how an exported line starts
	// hint is what a command that would write into the store is told to do instead.
	hint  string
	files *storefiles.Kind
}

// Opencode is opencode's store: opencode.db (opencode-CHANNEL.db for another release channel).
var Opencode = newAgent("opencode", "opencode", FileName, `{"info":`,
	"give -o OUT.json to write the result as a new session for `opencode import OUT.json` (any other -o OUT: a ctxc-format session)")

// Kilo is Kilo Code CLI's store: kilo.db (kilo-CHANNEL.db for another release channel).
var Kilo = newAgent("kilo", "kilo", "kilo.db", `{"agent":"kilo","info":`,
	"give -o OUT to write the result as a new ctxc-format session")

func newAgent(name, dir, file, line, hint string) *Agent {
	a := &Agent{Name: name, Dir: dir, FileName: file, line: line, hint: hint}
	a.files = &storefiles.Kind{Name: name, Named: a.NamedAsStore,
		Open:   func(store string) (storefiles.Store, error) { return a.Open(store) },
		Refuse: func(name string) error { return a.ReadOnly(name) }}
	return a
}

// DefaultPath is where the agent keeps its store: DIR/FILE in XDG_DATA_HOME, by default
// ~/.local/share ("" when neither is known).
func (a *Agent) DefaultPath() string {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, a.Dir, a.FileName)
}

// NamedAsStore reports whether path has a store's name (FILE, or NAME-CHANNEL.db): only such a
// file is opened to be checked by IsStoreFile.
func (a *Agent) NamedAsStore(path string) bool {
	b := filepath.Base(path)
	return b == a.FileName || (strings.HasPrefix(b, a.Name+"-") && strings.HasSuffix(b, ".db"))
}

// ReadOnly is the error of a command that writes into a session of the agent's store: ctxc only
// reads the store.
func (a *Agent) ReadOnly(name string) error {
	return &safewrite.ReadOnlyError{Path: name, Reason: "is a session of " + a.Name + "'s SQLite store, which ctxc only reads", Hint: a.hint}
}

// IsStoreFile reports whether path has a store's name and starts as an SQLite database: a
// candidate store, checked for its tables when opened.
func (a *Agent) IsStoreFile(path string) bool { return a.files.IsStoreFile(path) }

// SplitName splits a session's name, STORE#SESSION-ID, into the store's path and the session
// id; ok is false when it names no session of a store of this agent.
func (a *Agent) SplitName(name string) (store, session string, ok bool) {
	return a.files.SplitName(name)
}

// IsSessionName reports whether name addresses one session of a store of this agent.
func (a *Agent) IsSessionName(name string) bool {
	_, _, ok := a.files.SplitName(name)
	return ok
}

// ListSessions opens a store and lists its sessions' names.
func (a *Agent) ListSessions(path string) ([]string, error) { return a.files.ListSessions(path) }

// RunExported runs a command that writes (compact, repair) on a session of a store, never in
// place (ReadOnly), its -o never the store: on the session exported as a temporary file.
func (a *Agent) RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	return a.files.RunExported(name, inPlace, output, force, run)
}

// OpenSession exports one session, named STORE#SESSION-ID, into an open file that no other
// program sees, positioned at its start (storefiles.Kind.OpenSession).
func (a *Agent) OpenSession(name string) (*os.File, fs.FileInfo, error) {
	return a.files.OpenSession(name)
}

// StatSession states a session as OpenSession would open it.
func (a *Agent) StatSession(name string) (fs.FileInfo, error) { return a.files.StatSession(name) }

// ExportTemp exports one session into a new private temporary file; cleanup removes it.
func (a *Agent) ExportTemp(name string) (path string, cleanup func(), err error) {
	return a.files.ExportTemp(name)
}

// Owns reports whether name addresses one session of a store of this agent.
func (a *Agent) Owns(name string) bool { return a.IsSessionName(name) }

// FoundInWalk says whether a file met in a directory walk (path, its base name) is a store: it
// has a store's name.
func (a *Agent) FoundInWalk(_, name string) bool { return a.NamedAsStore(name) }

// DefaultPaths lists where the agent keeps its store, for search's default paths.
func (a *Agent) DefaultPaths() []string {
	if p := a.DefaultPath(); p != "" {
		return []string{p}
	}
	return nil
}

// opencode's store, as the package's functions read it.

// Open opens an opencode store read-only and checks that it has opencode's tables.
func Open(path string) (*Store, error) { return Opencode.Open(path) }

// IsSessionName reports whether name addresses one session of an opencode store.
func IsSessionName(name string) bool { return Opencode.IsSessionName(name) }

// ListSessions opens an opencode store and lists its sessions' names.
func ListSessions(path string) ([]string, error) { return Opencode.ListSessions(path) }

// SessionIDs lists the ids of the store's sessions.
func (s *Store) SessionIDs() ([]string, error) {
	sessions, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(sessions))
	for i, ss := range sessions {
		ids[i] = ss.ID
	}
	return ids, nil
}

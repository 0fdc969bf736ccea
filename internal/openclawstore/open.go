package openclawstore

import (
	"io/fs"
	"os"

	"github.com/ctxc/ctxc/internal/storefiles"
)

// files reads this store's sessions as files (internal/storefiles).
var files = &storefiles.Kind{Name: "openclaw", NamedAsStore: NamedAsStore,
	Open:     func(store string) (storefiles.Store, error) { return Open(store) },
	ReadOnly: func(name string) error { return ReadOnly(name) }}

// IsStoreFile reports whether path has a store's name and starts as an SQLite database: a
// candidate store, checked for its tables when opened.
func IsStoreFile(path string) bool { return files.IsStoreFile(path) }

// SplitName splits a session's name, STORE#SESSION-ID, into the store's path and the session
// id; ok is false when it names no session of a store of this agent.
func SplitName(name string) (store, session string, ok bool) { return files.SplitName(name) }

// IsSessionName reports whether name addresses one session of a store.
func IsSessionName(name string) bool {
	_, _, ok := files.SplitName(name)
	return ok
}

// ListSessions opens a store and lists its sessions' names.
func ListSessions(path string) ([]string, error) { return files.ListSessions(path) }

// RunExported runs a command that writes (compact, repair) on a session of a store, never in
// place (ReadOnly), its -o never the store: on the session exported as a temporary file.
func RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	return files.RunExported(name, inPlace, output, force, run)
}

// OpenSession exports one session, named STORE#SESSION-ID, into an open file that no other
// program sees, positioned at its start (storefiles.Kind.OpenSession).
func OpenSession(name string) (*os.File, fs.FileInfo, error) { return files.OpenSession(name) }

// StatSession states a session as OpenSession would open it.
func StatSession(name string) (fs.FileInfo, error) { return files.StatSession(name) }

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

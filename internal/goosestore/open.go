package goosestore

import (
	"io/fs"
	"os"

	"github.com/ctxc/ctxc/internal/storefiles"
)

// files reads this store's sessions as files (internal/storefiles).
var files = &storefiles.Kind{Name: "goose", NamedAsStore: NamedAsStore,
	Open:     func(store string) (storefiles.Store, error) { return Open(store) },
	ReadOnly: func(name string) error { return ReadOnly(name) }}

// IsStoreFile reports whether path has a store's name, starts as an SQLite database and has
// Goose's tables: other agents name a database sessions.db too (Cline CLI's list of its
// sessions, ~/.cline/data/db/sessions.db), which is none of Goose's.
func IsStoreFile(path string) bool {
	if !files.IsStoreFile(path) {
		return false
	}
	s, err := Open(path)
	if err != nil {
		return false
	}
	s.Close()
	return true
}

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

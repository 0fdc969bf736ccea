package openclawstore

import (
	"io/fs"
	"os"

	"github.com/ctxc/ctxc/internal/storefiles"
)

// files reads this store's sessions as files (internal/storefiles).
var files = &storefiles.Kind{Name: "openclaw", Split: SplitName,
	Open: func(store string) (storefiles.Store, error) { return Open(store) }}

// OpenSession exports one session, named STORE#SESSION-ID, into an open file that no other
// program sees, positioned at its start (storefiles.Kind.OpenSession).
func OpenSession(name string) (*os.File, fs.FileInfo, error) { return files.OpenSession(name) }

// StatSession states a session as OpenSession would open it.
func StatSession(name string) (fs.FileInfo, error) { return files.StatSession(name) }

// ExportTemp exports one session into a new private temporary file; cleanup removes it.
func ExportTemp(name string) (path string, cleanup func(), err error) { return files.ExportTemp(name) }

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

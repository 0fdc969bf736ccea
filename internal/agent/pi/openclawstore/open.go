package openclawstore

import "github.com/ctxc/ctxc/internal/storefiles"

// Sessions reads this store's sessions as files (internal/storefiles): a directory walk finds a
// store by its name, FileName.
var Sessions = &storefiles.Kind{Name: "openclaw", Named: NamedAsStore,
	Open:   func(store string) (storefiles.Store, error) { return Open(store) },
	Refuse: func(name string) error { return ReadOnly(name) },
	Found:  func(_, name string) bool { return name == FileName }}

// IsSessionName reports whether name addresses one session of a store.
func IsSessionName(name string) bool { return Sessions.Owns(name) }

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

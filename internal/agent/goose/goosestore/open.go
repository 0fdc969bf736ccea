package goosestore

import "github.com/ctxc/ctxc/internal/storefiles"

// Sessions reads this store's sessions as files (internal/storefiles). Other agents name a
// database sessions.db too (Cline CLI's list of its sessions, ~/.cline/data/db/sessions.db): a
// store is one with Goose's tables, and a directory walk finds a store by its name and tables.
var Sessions = &storefiles.Kind{Name: "goose", Named: NamedAsStore,
	Open:   func(store string) (storefiles.Store, error) { return Open(store) },
	Refuse: func(name string) error { return ReadOnly(name) },
	Check:  hasTables,
	Found:  func(path, name string) bool { return name == FileName && storefiles.IsSQLite(path) && hasTables(path) }}

// hasTables reports whether an SQLite file named as a store opens as one: it has Goose's tables.
func hasTables(path string) bool {
	s, err := Open(path)
	if err != nil {
		return false
	}
	s.Close()
	return true
}

// ListSessions opens a store and lists its sessions' names.
func ListSessions(path string) ([]string, error) { return Sessions.ListSessions(path) }

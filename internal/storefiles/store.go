package storefiles

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// Sep separates a store's path from a session id in a session's name: STORE#SESSION-ID.
const Sep = "#"

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsSQLite reports whether path is a regular file that starts as an SQLite database.
func IsSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false
	}
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil {
		return false
	}
	return bytes.Equal(head, sqliteMagic)
}

// ReadOnlyDSN is how a store is opened so that the agent writing it never waits on ctxc:
// mode=ro (SQLite opens the file read-only: no journal is ever created, no hot journal rolled
// back, no WAL checkpoint run, not even on close), query_only as a second lock on writes, and a
// short busy_timeout for the moments a commit holds the file.
func ReadOnlyDSN(path string, busy time.Duration) string {
	u := url.URL{Scheme: "file", Path: path}
	if abs, err := filepath.Abs(path); err == nil {
		u.Path = abs
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	return u.String() + "?" + q.Encode()
}

// SplitName splits a session's name into the store's path and the session id. ok is false
// when name is not STORE#SESSION-ID with STORE an existing store file of this kind (a file
// whose name contains # is a file, not a session).
func (k *Kind) SplitName(name string) (store, session string, ok bool) {
	i := strings.LastIndex(name, Sep)
	if i <= 0 || i == len(name)-len(Sep) {
		return "", "", false
	}
	store, session = name[:i], name[i+len(Sep):]
	if !k.NamedAsStore(store) {
		return "", "", false
	}
	if _, err := os.Stat(name); err == nil {
		return "", "", false
	}
	if !isSQLiteKnown(store) {
		return "", "", false
	}
	return store, session, true
}

// sqliteFiles remembers which files start as SQLite databases, for the state (size and time) they
// were looked at in: every reader of a session of a store asks whether its name names one (about
// ten times a session when stats reads a store's sessions), and a stat costs less than the open
// and read of the file's head.
var sqliteFiles = struct {
	sync.Mutex
	by map[string]sqliteFile
}{by: map[string]sqliteFile{}}

type sqliteFile struct {
	size, mod int64
	ok        bool
}

// isSQLiteKnown is IsSQLite, looked up again only when the file's size or time changed.
func isSQLiteKnown(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	now := sqliteFile{size: info.Size(), mod: info.ModTime().UnixNano()}
	sqliteFiles.Lock()
	known, ok := sqliteFiles.by[path]
	sqliteFiles.Unlock()
	if ok && known.size == now.size && known.mod == now.mod {
		return known.ok
	}
	now.ok = IsSQLite(path)
	sqliteFiles.Lock()
	sqliteFiles.by[path] = now
	sqliteFiles.Unlock()
	return now.ok
}

// IsStoreFile reports whether path has this kind's store name and starts as an SQLite database:
// a candidate store, checked for its tables when opened.
func (k *Kind) IsStoreFile(path string) bool {
	return k.Named(path) && IsSQLite(path) && (k.Check == nil || k.Check(path))
}

// ListSessions opens a store and lists its sessions' names.
func (k *Kind) ListSessions(path string) ([]string, error) {
	s, release, err := k.use(path, storeKey(path))
	if err != nil {
		return nil, err
	}
	defer release()
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = path + Sep + id
	}
	return names, nil
}

// RunExported runs a command that writes (compact, repair) on a session of a store, which ctxc
// never writes into: inPlace (the command would write into the session) is the kind's ReadOnly
// error; an output file (-o; "" for none to check) is never the store nor its journal files; the
// command runs on the session exported as a temporary file, removed after.
func (k *Kind) RunExported(name string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	if inPlace {
		return k.ReadOnly(name)
	}
	if store, _, ok := k.SplitName(name); ok && output != "" {
		if err := safewrite.CheckOutput(output, []string{store, store + "-wal", store + "-shm", store + "-journal"}, force); err != nil {
			return err
		}
	}
	tmp, cleanup, err := k.ExportTemp(name)
	if err != nil {
		return err
	}
	defer cleanup()
	return run(tmp)
}

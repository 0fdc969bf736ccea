// Package storefiles reads the sessions of an agent's SQLite store as files: each session,
// named STORE#SESSION-ID, exported into a file no other program sees (OpenSession), stated
// without being opened (StatSession: the sizes of all of a store's sessions measured together,
// once for each state of the store), or exported into a private temporary file for a command
// that works on a file of its own (ExportTemp). What a store is, how its sessions are named and
// how one is exported is its own package's (internal/agent/pi/openclawstore, internal/agent/opencode/opencodestore):
// each gives a Kind.
package storefiles

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Store is an open store, read-only.
type Store interface {
	// SessionIDs lists the ids of the store's sessions.
	SessionIDs() ([]string, error)
	// Export writes one session as JSONL lines to w; it returns how many it wrote.
	Export(ctx context.Context, session string, w io.Writer) (int, error)
	Close() error
}

// Kind is one agent's store, as its package describes it.
type Kind struct {
	Name   string                 // the agent, in temporary files' names
	Named  func(path string) bool // a store's file name: only such a file is opened to be checked
	Open   func(store string) (Store, error)
	Refuse func(name string) error // the error of a command that would write into a session
	// Check, if set, tells a store from another program's SQLite file of the same name.
	Check func(path string) bool
	// Found, if set, says whether a file met in a directory walk (path, its base name) is a
	// store; by default, a file with a store's name.
	Found func(path, name string) bool
	// Defaults, if set, lists where the agent keeps its store, for search's default paths.
	Defaults func() []string
}

// NamedAsStore reports whether path has a store's name: only such a file is opened to be
// checked by IsStoreFile.
func (k *Kind) NamedAsStore(path string) bool { return k.Named(path) }

// Owns reports whether name addresses one session of a store of this kind (STORE#SESSION-ID).
func (k *Kind) Owns(name string) bool {
	_, _, ok := k.SplitName(name)
	return ok
}

// ReadOnly is the error of a command that would write into a session of the store.
func (k *Kind) ReadOnly(name string) error { return k.Refuse(name) }

// FoundInWalk says whether a file met in a directory walk (path, its base name) is a store.
func (k *Kind) FoundInWalk(path, name string) bool {
	if k.Found != nil {
		return k.Found(path, name)
	}
	return k.Named(name)
}

// DefaultPaths lists where the agent keeps its store (none when not said).
func (k *Kind) DefaultPaths() []string {
	if k.Defaults == nil {
		return nil
	}
	return k.Defaults()
}

// OpenSession exports one session, named STORE#SESSION-ID, into an open file that no other
// program sees (a memory file on Linux, an unlinked temporary file elsewhere), positioned at its
// start, so that every reader of session files reads it as it reads a session file on disk. The
// FileInfo has the session's name, the exported size and the time the store last changed.
func (k *Kind) OpenSession(name string) (*os.File, fs.FileInfo, error) {
	store, session, ok := k.SplitName(name)
	if !ok {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	key := storeKey(store)
	if f, size, ok := reopenKept(name, fmt.Sprint(key)); ok {
		return f, sessionInfo{name: name, size: size, mod: keyTime(key)}, nil
	}
	s, release, err := k.use(store, key)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	f, err := anonymousFile(k.Name)
	if err != nil {
		return nil, nil, err
	}
	if err := exportBuffered(s, session, f); err != nil {
		f.Close()
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil {
		_, err = f.Seek(0, 0)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if key == storeKey(store) { // (an export of a store that changed meanwhile is not kept)
		f = keep(name, fmt.Sprint(key), f, info.Size())
	}
	return f, sessionInfo{name: name, size: info.Size(), mod: keyTime(key)}, nil
}

// StatSession states a session as OpenSession would open it. The sizes of all the sessions of
// a store are measured together (sizesOf), once for each state of the store in a process: an
// update of the index, or a grep of it, states every session of an archive, and exporting each
// one on its own, with the store opened again for each, made that one store open per session.
func (k *Kind) StatSession(name string) (fs.FileInfo, error) {
	store, session, ok := k.SplitName(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	st, err := k.sizesOf(store)
	if err != nil {
		return nil, err
	}
	size, ok := st.sizes[session]
	if !ok {
		if err := st.errs[session]; err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: no such session in this store: %w", name, fs.ErrNotExist)
	}
	return sessionInfo{name: name, size: size, mod: st.mod}, nil
}

// storeSizes are the exported sizes of a store's sessions (errs: the sessions that could not be
// exported, and why), measured when the store was in the state key says.
type storeSizes struct {
	key   [4]int64 // the store's and its -wal file's size and time
	mod   time.Time
	sizes map[string]int64
	errs  map[string]error
}

var measured = struct {
	sync.Mutex
	by map[string]*storeSizes
}{by: map[string]*storeSizes{}}

// sizesOf measures the sessions of store by exporting each (as OpenSession does) into a
// counter, unless this process measured the store in the state it is in.
func (k *Kind) sizesOf(store string) (*storeSizes, error) {
	measured.Lock()
	defer measured.Unlock()
	key := storeKey(store)
	if st := measured.by[store]; st != nil && st.key == key {
		return st, nil
	}
	s, release, err := k.use(store, key)
	if err != nil {
		return nil, err
	}
	defer release()
	sessions, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	st := &storeSizes{key: key, mod: keyTime(key), sizes: map[string]int64{}, errs: map[string]error{}}
	for _, id := range sessions {
		var c counter
		if _, err := s.Export(context.Background(), id, &c); err != nil {
			st.errs[id] = err
			continue
		}
		st.sizes[id] = int64(c)
	}
	if key == storeKey(store) { // (a store that changed meanwhile is measured again next time)
		measured.by[store] = st
	}
	return st, nil
}

// storeKey is the state of a store as its files show it: their sizes and times.
func storeKey(store string) [4]int64 {
	var k [4]int64
	for i, p := range []string{store, store + "-wal"} {
		if info, err := os.Stat(p); err == nil {
			k[2*i], k[2*i+1] = info.Size(), info.ModTime().UnixNano()
		}
	}
	return k
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// keyTime is the later of the two times of a storeKey (zero when neither file was found).
func keyTime(k [4]int64) time.Time {
	if ns := max(k[1], k[3]); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// sessionInfo is the FileInfo of an exported session.
type sessionInfo struct {
	name string
	size int64
	mod  time.Time
}

func (i sessionInfo) Name() string       { return i.name }
func (i sessionInfo) Size() int64        { return i.size }
func (i sessionInfo) Mode() fs.FileMode  { return 0o400 }
func (i sessionInfo) ModTime() time.Time { return i.mod }
func (i sessionInfo) IsDir() bool        { return false }
func (i sessionInfo) Sys() any           { return nil }

// ExportTemp exports one session, named STORE#SESSION-ID, as a JSONL file in its store's format, in a new
// private temporary directory, for the commands that work on a file of their own (a compaction
// written with -o): the store is never written. cleanup removes the directory.
func (k *Kind) ExportTemp(name string) (path string, cleanup func(), err error) {
	store, session, ok := k.SplitName(name)
	if !ok {
		return "", nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	dir, err := os.MkdirTemp("", "ctxc-"+k.Name+"-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "session.jsonl")
	if err := k.exportTo(store, session, path); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// exportTo writes one session of a store into a new file.
func (k *Kind) exportTo(store, session, path string) error {
	s, release, err := k.use(store, storeKey(store))
	if err != nil {
		return err
	}
	defer release()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = exportBuffered(s, session, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

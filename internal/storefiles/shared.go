package storefiles

import (
	"bufio"
	"context"
	"io"
	"sync"
	"time"
)

// A command that reads many sessions of a store (stats, grep, the index, an export of every
// session a store lists) opened the store, read its schema and prepared its queries anew for each
// session: about half of `stats`' time on a store of 2,000 sessions. An open store is shared by
// every export from it in a process while its files keep their sizes and times (storeKey): opened
// once, its statements prepared once, each session read through the store's indexes, in the
// order its readers ask for them, and handed to its reader as soon as it is exported. Between two
// exports it holds no read transaction, so the agent that writes the store never waits on it; it
// is closed once no export has used it for idleClose, or once the store changed and its last
// export is done.
const idleClose = 2 * time.Second

// sharedStore is an open store and the exports under way from it.
type sharedStore struct {
	s     Store
	key   [4]int64
	users int
	stale bool // the store changed: closed by its last user
	idle  *time.Timer
}

var shared = struct {
	sync.Mutex
	by map[string]*sharedStore // by kind and store path
}{by: map[string]*sharedStore{}}

// use gives the store open in the state key, opened unless an export from that state already
// has it open; release says the caller is done with it.
func (k *Kind) use(store string, key [4]int64) (s Store, release func(), err error) {
	id := k.Name + "\x00" + store
	shared.Lock()
	defer shared.Unlock()
	ss := shared.by[id]
	if ss != nil && ss.key != key {
		delete(shared.by, id)
		ss.stale = true
		if ss.users == 0 {
			ss.close()
		}
		ss = nil
	}
	if ss == nil {
		s, err := k.Open(store)
		if err != nil {
			return nil, nil, err
		}
		ss = &sharedStore{s: s, key: key}
		shared.by[id] = ss
	}
	if ss.idle != nil {
		ss.idle.Stop()
		ss.idle = nil
	}
	ss.users++
	return ss.s, func() { ss.release(id) }, nil
}

// release ends one use of the store: the last closes it if it is stale, else after idleClose.
func (ss *sharedStore) release(id string) {
	shared.Lock()
	defer shared.Unlock()
	if ss.users--; ss.users > 0 {
		return
	}
	if ss.stale {
		ss.close()
		return
	}
	ss.idle = time.AfterFunc(idleClose, func() {
		shared.Lock()
		defer shared.Unlock()
		if ss.users == 0 && shared.by[id] == ss {
			delete(shared.by, id)
			ss.close()
		}
	})
}

func (ss *sharedStore) close() {
	if ss.idle != nil {
		ss.idle.Stop()
	}
	ss.s.Close()
}

// writers are the buffers exports are written through: a session's lines reach its file in
// large writes, and each export reuses a buffer rather than making one.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 256<<10) }}

// exportBuffered exports one session of s to w through a pooled buffer.
func exportBuffered(s Store, session string, w io.Writer) error {
	bw := writers.Get().(*bufio.Writer)
	defer writers.Put(bw)
	bw.Reset(w)
	_, err := s.Export(context.Background(), session, bw)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	return err
}

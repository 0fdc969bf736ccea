package storefiles

import (
	"os"
	"sync"
)

// The readers of one session read it one after the other (stats detects its format, scans it,
// then reads its usage; grep lists its compactions, then reads it), and each opened it anew, so
// a session of a store, or a file read as its export (Converted), was exported three times. The
// sessions exported last are kept, as the open files they were exported into, and opening one of
// them again, while its source is in the state it was exported from, reopens that file (its own
// offset, the same bytes). At most keptExports files and keptBytes bytes are kept; a larger session is exported
// each time, as before.
const (
	keptExports = 16
	keptBytes   = 64 << 20
)

type keptExport struct {
	name string
	key  string // the state of its source it was exported from
	f    *os.File
	size int64
}

var kept struct {
	sync.Mutex
	list  []keptExport // oldest first
	bytes int64
}

// reopenKept opens again the export of name kept from its source in state key, if there is one.
func reopenKept(name, key string) (*os.File, int64, bool) {
	kept.Lock()
	defer kept.Unlock()
	for _, e := range kept.list {
		if e.name == name && e.key == key {
			f, err := reopen(e.f)
			if err != nil {
				return nil, 0, false
			}
			return f, e.size, true
		}
	}
	return nil, 0, false
}

// keep keeps f, the export of name from its source in state key, and returns the file the
// caller reads: a reopening of f (f itself when it cannot be reopened, and then not kept).
func keep(name, key string, f *os.File, size int64) *os.File {
	if size > keptBytes {
		return f
	}
	g, err := reopen(f)
	if err != nil {
		return f
	}
	kept.Lock()
	defer kept.Unlock()
	kept.list = append(kept.list, keptExport{name, key, f, size})
	kept.bytes += size
	for len(kept.list) > keptExports || kept.bytes > keptBytes {
		kept.list[0].f.Close()
		kept.bytes -= kept.list[0].size
		kept.list = kept.list[1:]
	}
	return g
}

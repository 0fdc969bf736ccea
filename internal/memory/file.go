package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/rogpeppe/go-internal/diff"
)

// FileUpdate is what updating a memory file did or would do.
type FileUpdate struct {
	Path    string  // the file written (a symbolic link is followed)
	Changed bool    // the new bytes differ from the old
	Created bool    // the file did not exist
	Entries []Entry // the section's entries after the update
	Old     []byte  // the file's bytes before
	New     []byte  // its bytes after
	Diff    []byte  // a unified diff of Old and New (empty when unchanged)
	Added   int     // entries the section did not have before
}

// UpdateFile merges the memory of the sessions read (m, from inputs) into the section of the
// memory file at path and, unless dryRun, writes the file: through a temporary file and a
// rename, keeping its mode, under a lock so that two updates at once do not lose one another.
// A failure leaves the file as it was.
func UpdateFile(path string, m *Memory, inputs []string, o Options, dryRun bool) (*FileUpdate, error) {
	// Never a session read (the section would be written into it), a folder, or in a missing one.
	if _, err := safewrite.CheckDest(path, inputs); err != nil {
		return nil, err
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	unlock, err := safewrite.LockAside(target)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, mode, exists, err := readMemoryFile(target)
	if err != nil {
		return nil, err
	}
	prev, err := Section(old)
	if err != nil {
		var se *SectionError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%d: %s", path, se.Line, se.Msg)
		}
		return nil, err
	}
	entries := Merge(prev, m, inputs, o)
	if o.Refine != nil {
		entries = o.Refine(entries)
	}
	next, err := Update(old, Markdown(entries))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	u := &FileUpdate{Path: target, Created: !exists, Entries: entries, Old: old, New: next,
		Changed: !bytes.Equal(old, next) || !exists}
	u.count(prev)
	if u.Changed {
		u.Diff = diff.Diff(path+" (before)", old, path+" (after)", next)
	}
	if dryRun || !u.Changed {
		return u, nil
	}
	return u, safewrite.WriteAtomicMode(target, mode, func(w io.Writer) error {
		_, err := w.Write(next)
		return err
	})
}

// count says how many entries are new and how many were kept from the file alone.
func (u *FileUpdate) count(prev []Entry) {
	had := map[string]bool{}
	for _, e := range prev {
		had[entryKey(e.Kind, e.Text)] = true
	}
	for _, e := range u.Entries {
		if !had[entryKey(e.Kind, e.Text)] {
			u.Added++
		}
	}
}

// resolve follows a symbolic link to the file it names (a CLAUDE.md linked to AGENTS.md is
// updated where it is, not replaced by a file).
func resolve(path string) (string, error) {
	t, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return "", fmt.Errorf("%s: a symbolic link to a missing file", path)
		}
		return path, nil
	}
	return t, err
}

func readMemoryFile(path string) (data []byte, mode fs.FileMode, exists bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s: not a regular file", path)
	}
	data, err = os.ReadFile(path)
	return data, info.Mode().Perm(), true, err
}

package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
)

// checkSpan is how many bytes at each end of the archived part are compared with the source
// before new bytes are appended: a source rewritten in place, or truncated and written again,
// differs there.
const checkSpan = 4096

// scanBlock is the size of the blocks read backwards to find the last complete line.
const scanBlock = 64 << 10

// File archives one source: the complete lines it gained since the last run become one new
// zstd frame at the end of its archive.
func (a *Archiver) File(src Source) (Result, error) {
	res := Result{Source: src.Path, Archive: src.Name}
	f, err := os.Open(src.Path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, err
	}
	if !st.Mode().IsRegular() {
		return res, fmt.Errorf("%s: not a regular file", src.Path)
	}
	abs, err := sourceOf(src.Path)
	if err != nil {
		return res, err
	}
	e, err := a.settle(src.Name, abs, &res)
	if err != nil {
		return res, err
	}
	size, mtime := st.Size(), st.ModTime().UnixNano()
	if e.Compressed > 0 && e.Size == size && e.MTimeNs == mtime && size >= e.Archived {
		res.Status, res.Held = StatusUnchanged, size-e.Archived
		return res, nil
	}
	if e, err = a.checkPrefix(f, src.Name, abs, e, size, &res); err != nil {
		return res, err
	}
	if err := a.checkRedaction(src.Path, e); err != nil {
		return res, err
	}
	end, err := lastLineEnd(f, e.Archived, size)
	if err != nil {
		return res, fmt.Errorf("%s: %w", src.Path, err)
	}
	res.Held = size - end
	if res.Status == "" {
		res.Status = StatusGrew
		if e.Compressed == 0 {
			res.Status = StatusNew
		}
	}
	if end == e.Archived {
		if res.Status != StatusVersion {
			res.Status = StatusUnchanged
		}
		if !a.dryRun && e.Compressed > 0 {
			e.Size, e.MTimeNs, a.dirty = size, mtime, true
		}
		return res, nil
	}
	res.Bytes = end - e.Archived
	if a.dryRun {
		return res, nil
	}
	if err := a.appendFrame(f, src.Name, e, end, &res); err != nil {
		return res, fmt.Errorf("%s: %w", src.Path, err)
	}
	e.Size, e.MTimeNs = size, mtime
	return res, a.save(false)
}

// checkRedaction refuses to continue an archive redacted otherwise than this run asks, and
// marks a new one as this run redacts it.
func (a *Archiver) checkRedaction(path string, e *Entry) error {
	if e.Compressed == 0 {
		e.Redacted = a.Redact
		return nil
	}
	switch {
	case e.Redacted && !a.Redact:
		return fmt.Errorf("%s: its archive is redacted: archive it with --redact, or into another DEST", path)
	case !e.Redacted && a.Redact:
		return fmt.Errorf("%s: its archive is a byte-exact copy: archive it without --redact, or into another DEST", path)
	}
	return nil
}

// settle brings the archive file back to what the manifest records: the bytes of a frame a
// killed run was writing are cut off; a file shorter than recorded is damaged, kept aside, and
// the source archived anew; a file the manifest does not know is kept aside too.
func (a *Archiver) settle(name, abs string, res *Result) (*Entry, error) {
	e := a.man.Files[name]
	info, err := os.Lstat(a.path(name))
	var have int64
	exists := err == nil
	if exists {
		have = info.Size()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	switch {
	case e == nil && !exists:
		e = &Entry{Source: abs}
		if !a.dryRun {
			a.man.Files[name], a.dirty = e, true
		}
		return e, nil
	case e == nil:
		return a.startOver(name, abs, "an archive file not in the manifest", res)
	case e.Source != abs:
		return nil, fmt.Errorf("%s: %s already archives %s", abs, a.path(name), e.Source)
	case have > e.Compressed:
		if !a.dryRun {
			if err := os.Truncate(a.path(name), e.Compressed); err != nil {
				return nil, err
			}
		}
		res.Note = fmt.Sprintf("cut %d bytes of an interrupted frame", have-e.Compressed)
	case have < e.Compressed:
		e.Damaged = true
		return a.startOver(name, abs, fmt.Sprintf("the archive file has %d bytes, the manifest records %d", have, e.Compressed), res)
	}
	return e, nil
}

// startOver keeps the present archive file as an old version and starts a new one.
func (a *Archiver) startOver(name, abs, why string, res *Result) (*Entry, error) {
	old, err := a.keepOldVersion(name, abs, why)
	if err != nil {
		return nil, err
	}
	res.Status, res.Kept, res.Warning = StatusVersion, old, true
	res.Note = why + ": archived anew"
	if a.dryRun {
		return &Entry{Source: abs}, nil
	}
	return a.man.Files[name], nil
}

// checkPrefix makes sure the source still starts with the bytes archived; a source that shrank
// or was rewritten gets a new version, the old archive kept.
func (a *Archiver) checkPrefix(f *os.File, name, abs string, e *Entry, size int64, res *Result) (*Entry, error) {
	if e.Archived == 0 {
		return e, nil
	}
	why := ""
	if size < e.Archived {
		why = fmt.Sprintf("the session shrank from %d to %d bytes", e.Archived, size)
	} else {
		head, tail, err := ends(f, e.Archived)
		if err != nil {
			return nil, err
		}
		if head != e.Head || tail != e.Tail {
			why = "the session's archived part was rewritten"
		}
	}
	if why == "" {
		return e, nil
	}
	old, err := a.keepOldVersion(name, abs, why)
	if err != nil {
		return nil, err
	}
	res.Status, res.Kept, res.Note = StatusVersion, old, why
	if a.dryRun {
		return &Entry{Source: abs}, nil
	}
	return a.man.Files[name], nil
}

// ends returns the SHA-256 of the first and of the last checkSpan bytes of f[:n].
func ends(f *os.File, n int64) (head, tail string, err error) {
	sum := func(off int64) (string, error) {
		l := min(int64(checkSpan), n-off)
		b := make([]byte, l)
		if _, err := f.ReadAt(b, off); err != nil {
			return "", err
		}
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:]), nil
	}
	if head, err = sum(0); err != nil {
		return "", "", err
	}
	tail, err = sum(max(0, n-checkSpan))
	return head, tail, err
}

// lastLineEnd is the offset just after the last '\n' in f[from:size], or from when there is none:
// an unfinished last line is the agent's, still being written.
func lastLineEnd(f *os.File, from, size int64) (int64, error) {
	buf := make([]byte, scanBlock)
	for hi := size; hi > from; {
		lo := max(from, hi-scanBlock)
		b := buf[:hi-lo]
		if _, err := f.ReadAt(b, lo); err != nil {
			return 0, fmt.Errorf("reading back from the end: %w", err)
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return from, nil
}

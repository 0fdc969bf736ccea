// Package safewrite owns how ctxc writes to a file an agent may be writing too (docs/design.md
// §10): the sidecar lock that serializes ctxc processes, the live guard (a file modified within
// the idle period is the agent's), one O_APPEND write followed by fsync, the undo of an append
// whose reload check failed, and the atomic replacement of an output file; the checks of a file
// written from inputs (output.go) and of the last line appended after (tail.go). ctxc never
// rewrites bytes already in a transcript.
package safewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// A compaction is one O_APPEND write of marker + tail copies, then fsync, under a sidecar lock
// that serializes ctxc processes. The agent that owns the file does not take that lock, so a file
// modified in the last idle period is treated as live and skipped.

// The reasons of a BusyError.
const (
	ReasonLocked  = "locked"  // another ctxc holds the sidecar lock
	ReasonLive    = "live"    // modified within the idle period: the agent may be writing it
	ReasonChanged = "changed" // grew while it was being compacted
	ReasonShrank  = "shrank"  // shorter than when it was read: rewritten by another program
	ReasonWriting = "writing" // its last line is being written (no line end yet)
)

// BusyError says a file cannot be written now; retry later (exit 75).
type BusyError struct {
	Path   string
	Reason string // ReasonLocked, ReasonLive, ReasonChanged, ReasonShrank or ReasonWriting
	// Agent: the file is an agent's own session, which is never appended to after lines its
	// agent wrote meanwhile, --force or not.
	Agent bool
}

func (e *BusyError) Error() string {
	switch e.Reason {
	case ReasonLocked:
		return fmt.Sprintf("%s: another ctxc is compacting it (lock %s held)", e.Path, LockPath(e.Path))
	case ReasonLive:
		return fmt.Sprintf("%s: modified recently, the agent may still be writing it (use --force to compact anyway)", e.Path)
	case ReasonShrank:
		return fmt.Sprintf("%s: shorter than when it was read (another program rewrote it); nothing written: run again", e.Path)
	case ReasonWriting:
		return fmt.Sprintf("%s: its last line is being written (no line end yet); nothing written: retry when the agent is idle", e.Path)
	}
	if e.Agent {
		return fmt.Sprintf("%s: its agent wrote to it while it was being compacted; nothing written (even with --force, an agent's session is not appended to after its own new lines): retry when the agent is idle", e.Path)
	}
	return fmt.Sprintf("%s: changed while it was being compacted; nothing written (use --force to append anyway)", e.Path)
}

// LockPath is the sidecar lock of a transcript: beside the file a symbolic link names, so that
// a run through the link and one through the file take the same lock.
func LockPath(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		path = t
	}
	return path + ".ctxc.lock"
}

// Lock takes the sidecar lock without waiting.
func Lock(path string) (unlock func(), err error) {
	lp := LockPath(path)
	l := flock.New(lp)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("%s: taking lock: %w", path, err)
	}
	if !ok {
		return nil, &BusyError{Path: path, Reason: ReasonLocked}
	}
	return func() {
		l.Unlock()
		os.Remove(lp)
	}, nil
}

// LockAside takes a lock of a user's own file (a memory file ctxc merges into), waiting for it:
// it lives in the temporary directory, keyed by the file's absolute path, so that no sidecar
// appears beside the user's file.
func LockAside(path string) (unlock func(), err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(abs))
	l := flock.New(filepath.Join(os.TempDir(), "ctxc-memory-"+hex.EncodeToString(sum[:8])+".lock"))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("%s: locking: %w", path, err)
	}
	return func() { l.Unlock() }, nil
}

// FileState is what a compaction saw of the file before summarizing.
type FileState struct {
	Size    int64
	ModTime time.Time
}

// Stat records the file's size and time.
func Stat(path string) (FileState, error) {
	info, err := os.Stat(path)
	if err != nil {
		return FileState{}, err
	}
	return FileState{Size: info.Size(), ModTime: info.ModTime()}, nil
}

// CheckIdle is the live guard: a file modified less than idle ago (wall clock) may still be
// written by its agent, and is a BusyError with ReasonLive. idle <= 0 turns the guard off.
func (s FileState) CheckIdle(path string, idle time.Duration) error {
	if idle > 0 && time.Since(s.ModTime) < idle {
		return &BusyError{Path: path, Reason: ReasonLive}
	}
	return nil
}

// AppendResult says what Append wrote.
type AppendResult struct {
	Offset int64 // where the appended bytes start
	Bytes  int   // from Offset to the end of Append's last write (late copies, and Between, included)
	Late   int   // message lines copied after the append because they arrived during it
	// Between counts the lines (those keep accepts) another writer put between the append and
	// the copies of the late lines, BetweenBytes their bytes: they are part of the file after
	// the append, and an append with another writer's lines inside it is never undone.
	Between      int
	BetweenBytes int64
}

// Append appends the bytes build returns (complete lines) in one write and fsyncs.
// If the file grew since before (the agent wrote while the summary was being made), it refuses
// unless force; with force, build is given the complete lines that arrived meanwhile so that it
// can copy them after the tail (they would otherwise fall before the marker, out of the
// reloaded context). A file that does not end in a newline gets one first, so the marker is a
// line of its own. Lines that land between the look at the file and the write are copied after
// the block when keep accepts them (nil keeps every line).
func Append(path string, before FileState, build func(grown [][]byte) ([]byte, error), force bool, keep func(line []byte) bool) (AppendResult, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return AppendResult{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return AppendResult{}, err
	}
	size := info.Size()
	var grown [][]byte
	if size != before.Size {
		if size < before.Size {
			return AppendResult{}, &BusyError{Path: path, Reason: ReasonShrank}
		}
		if !force {
			return AppendResult{}, &BusyError{Path: path, Reason: ReasonChanged}
		}
		buf := make([]byte, size-before.Size)
		if _, err := f.ReadAt(buf, before.Size); err != nil && !errors.Is(err, io.EOF) {
			return AppendResult{}, err
		}
		grown = completeLines(buf)
	}
	tail, err := readTail(f, size)
	if err != nil {
		return AppendResult{}, fmt.Errorf("%s: %w", path, err)
	}
	if tail.cut {
		if size != before.Size {
			return AppendResult{}, &BusyError{Path: path, Reason: ReasonWriting}
		}
		return AppendResult{}, partialLine(f, path, tail)
	}
	data, err := build(grown)
	if err != nil {
		return AppendResult{}, err
	}
	if tail.unended {
		// A complete record that lacks only its line end: the end goes first, so that the
		// appended records are lines of their own.
		data = append([]byte{'\n'}, data...)
	}
	n, err := f.Write(data)
	// With O_APPEND the write lands at the end of the file as it is at that instant: the
	// offset after it tells where it really started.
	end, serr := f.Seek(0, io.SeekCurrent)
	if serr != nil {
		end = size + int64(n)
	}
	res := AppendResult{Offset: end - int64(n), Bytes: n}
	if err != nil {
		return res, fmt.Errorf("%s: append: %w", path, err)
	}
	if res.Offset > size && force {
		if err := copyLate(f, path, size, &res, keep); err != nil {
			return res, err
		}
	}
	if err := f.Sync(); err != nil {
		return res, fmt.Errorf("%s: fsync: %w", path, err)
	}
	return res, nil
}

// copyLate copies after the append the lines another writer put between the look at the file
// (size) and the append (res.Offset): they fell before the marker, and the copies put them in
// the reloaded context. The writer may go on writing meanwhile: where the copies really land
// tells what it put between them and the append, counted in res.Between.
func copyLate(f *os.File, path string, size int64, res *AppendResult, keep func(line []byte) bool) error {
	buf := make([]byte, res.Offset-size)
	if _, err := f.ReadAt(buf, size); err != nil {
		return nil // (the lines stay before the marker: the reload check says so)
	}
	var late bytes.Buffer
	for _, l := range completeLines(buf) {
		if keep == nil || keep(l) {
			late.Write(l)
			late.WriteByte('\n')
			res.Late++
		}
	}
	if late.Len() == 0 {
		return nil
	}
	appended := res.Offset + int64(res.Bytes)
	m, err := f.Write(late.Bytes())
	end, serr := f.Seek(0, io.SeekCurrent)
	if serr != nil {
		end = appended + int64(m)
	}
	res.Bytes = int(end - res.Offset)
	if from := end - int64(m); from > appended {
		res.BetweenBytes = from - appended // (known before it is read: Undo must not cut them)
		between := make([]byte, from-appended)
		if _, rerr := f.ReadAt(between, appended); rerr != nil {
			return fmt.Errorf("%s: %w", path, rerr)
		}
		for _, l := range completeLines(between) {
			if keep == nil || keep(l) {
				res.Between++
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%s: append: %w", path, err)
	}
	return nil
}

// completeLines splits b into its newline-terminated, non-blank lines (without terminators); a
// trailing partial line is left out.
func completeLines(b []byte) [][]byte {
	var out [][]byte
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		l := bytes.TrimRight(b[:i], "\r")
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
		b = b[i+1:]
	}
}

// Undo removes what Append wrote, but only if nothing was written after it: used
// when the reload check after writing fails, so that a failed compaction leaves the file as it
// was.
func Undo(path string, ar AppendResult) error {
	if ar.BetweenBytes > 0 {
		return fmt.Errorf("%s: not undoing the append: another writer's lines are inside it", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if info.Size() != ar.Offset+int64(ar.Bytes) {
		return fmt.Errorf("%s: not undoing the append: the file grew after it", path)
	}
	return os.Truncate(path, ar.Offset)
}

// WriteAtomic writes data to path through a temporary file in the same directory and a
// rename, so that readers never see a half-written output. A symbolic link at path is followed:
// the file it names is replaced, the link stays. Errors name path.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	return WriteAtomicMode(path, 0o644, write)
}

// WriteAtomicMode is WriteAtomic giving the file mode (a user's file replaced keeps its own).
func WriteAtomicMode(path string, mode fs.FileMode, write func(w io.Writer) error) error {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, ".ctxc-*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return &OutputError{Path: path, Msg: "the folder " + dir + " does not exist"}
		}
		if unwritableFolder(err) {
			return &OutputError{Path: path, Msg: "cannot create a file in " + dir + ": " + err.Error()}
		}
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	ok = true
	return nil
}

// unwrapPath is err without the *fs.PathError or *os.LinkError around it (the caller names the
// path the user gave).
// unwritableFolder: err says a folder takes no new file (its permissions, a read-only file
// system, a file where a folder should be): an output the user must put elsewhere.
func unwritableFolder(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

package safewrite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// The last line of a file ctxc appends to (docs/design.md §10). A last line without a line end
// that is a complete JSON record gets its line end before the append. One that is not valid JSON
// was cut short (a crash, a full disk, a copy interrupted): appending after it would make the
// cut line permanent, glued to nothing, so the append is refused (PartialLineError) and the
// file left as it is. --repair-tail (SetAsideTail) moves the cut bytes into a file beside the
// session, byte for byte, and cuts the session back to its last complete line; a compaction that
// fails afterwards puts them back (AsideTail.Restore).

// tailReadChunk is how much of the end of a file is read at a time to find its last line.
const tailReadChunk = 64 << 10

// PartialLineError: the last line of a file has no line end and is not valid JSON; nothing was
// written (exit 65).
type PartialLineError struct {
	Path   string
	Line   int   // the cut line's number (1-based)
	Offset int64 // where it starts
	Bytes  int64 // its length
}

func (e *PartialLineError) Error() string {
	return fmt.Sprintf("%s:%d: the last line is cut short (%d bytes without a line end, not valid JSON): appending after it would leave it broken for good; nothing written (--repair-tail moves it into %s and goes on)", e.Path, e.Line, e.Bytes, TailAsidePath(e.Path))
}

// TailAsidePath is the file --repair-tail moves a cut last line into (a number is added when it
// exists).
func TailAsidePath(path string) string { return path + ".ctxc-tail" }

// tailState is what the end of a file holds.
type tailState struct {
	start   int64 // where the last line starts
	unended bool  // the last line has no line end
	cut     bool  // ... and is not valid JSON
	line    []byte
}

// readTail reads the last line of f (size bytes) when it has no line end.
func readTail(f io.ReaderAt, size int64) (tailState, error) {
	if size == 0 {
		return tailState{}, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil && !errors.Is(err, io.EOF) {
		return tailState{}, err
	}
	if last[0] == '\n' {
		return tailState{start: size}, nil
	}
	var line []byte
	start := size
	for start > 0 {
		n := min(int64(tailReadChunk), start)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, start-n); err != nil && !errors.Is(err, io.EOF) {
			return tailState{}, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			line = append(buf[i+1:], line...)
			start = start - n + int64(i) + 1
			break
		}
		line = append(buf, line...)
		start -= n
	}
	t := tailState{start: start, unended: true, line: line}
	body := bytes.TrimSpace(line)
	if len(body) > 0 {
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		t.cut = !jsonl.Valid(body)
	}
	return t, nil
}

// partialLine is the PartialLineError of t, its line numbered.
func partialLine(f io.ReaderAt, path string, t tailState) error {
	n, err := countLines(f, t.start)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return &PartialLineError{Path: path, Line: n + 1, Offset: t.start, Bytes: int64(len(t.line))}
}

// countLines counts the line ends in f's first size bytes.
func countLines(f io.ReaderAt, size int64) (int, error) {
	buf := make([]byte, 1<<20)
	n := 0
	for off := int64(0); off < size; {
		m := min(int64(len(buf)), size-off)
		k, err := f.ReadAt(buf[:m], off)
		n += bytes.Count(buf[:k], []byte{'\n'})
		off += int64(k)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if k == 0 {
			break
		}
	}
	return n, nil
}

// CheckTail is the check Append makes, made before the work of a compaction: a PartialLineError
// when path's last line is cut short.
func CheckTail(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	t, err := readTail(f, info.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if t.cut {
		return partialLine(f, path, t)
	}
	return nil
}

// AsideTail is a cut last line SetAsideTail moved out of a session.
type AsideTail struct {
	Path  string // the session
	Aside string // the file that holds the cut bytes
	At    int64  // where they were (the session's size now)
	data  []byte
	mtime time.Time // the session's modification time before
}

// SetAsideTail moves path's cut last line, if it has one, into a new file beside it
// (TailAsidePath), written and synced before the session is cut back to its last complete line.
// It returns nil when the last line is not cut. The caller holds the session's lock.
func SetAsideTail(path string) (*AsideTail, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	t, err := readTail(f, info.Size())
	if err != nil || !t.cut {
		return nil, err
	}
	a := &AsideTail{Path: path, At: t.start, data: t.line, mtime: info.ModTime()}
	if a.Aside, err = writeNew(TailAsidePath(path), t.line); err != nil {
		return nil, err
	}
	if err := f.Truncate(t.start); err != nil {
		os.Remove(a.Aside)
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return a, fmt.Errorf("%s: fsync: %w", path, err)
	}
	return a, nil
}

// Restore puts the cut bytes back at the end of the session, as they were, with the session's
// modification time, and removes the file that held them; only when the session still ends
// where they were taken from.
func (a *AsideTail) Restore() error {
	f, err := os.OpenFile(a.Path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() != a.At {
		return fmt.Errorf("%s: not putting its cut last line back: the file changed; it is in %s", a.Path, a.Aside)
	}
	if _, err := f.Write(a.data); err != nil {
		return fmt.Errorf("%s: putting its cut last line back: %w (it is in %s)", a.Path, err, a.Aside)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: fsync: %w", a.Path, err)
	}
	// Its time too: the file is as it was, and is not taken for a live one on the next run.
	os.Chtimes(a.Path, time.Time{}, a.mtime)
	return os.Remove(a.Aside)
}

// writeNew writes data into a new file named name, or name.2, name.3, ... when it exists, and
// syncs it; it returns the name used.
func writeNew(name string, data []byte) (string, error) {
	for i := 1; ; i++ {
		p := name
		if i > 1 {
			p = fmt.Sprintf("%s.%d", name, i)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(p)
			return "", fmt.Errorf("%s: %w", p, err)
		}
		return p, nil
	}
}

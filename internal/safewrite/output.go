package safewrite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Every file a command writes from its inputs (compact -o, repair -o, memory --update, an
// archive's destination) passes one check before anything is read or written
// (docs/design.md §10): it is never one of the inputs, through any path, symbolic or hard link;
// its folder exists; it is a regular file or nothing yet; and a file that exists is replaced
// only when ctxc wrote it as an output and it has not changed since, or with --force.

// OutputError refuses a file a command was asked to write (exit 2): nothing was written.
type OutputError struct {
	Path string
	Msg  string
}

func (e *OutputError) Error() string { return e.Path + ": " + e.Msg }

// CheckDest checks that path can be written from inputs without destroying one of them: its
// folder exists, it is not a directory or another non-regular file, and it is not one of the
// inputs (the same file by device and inode, whatever the path that names it). It returns the
// file's information when it exists (nil when not).
func CheckDest(path string, inputs []string) (fs.FileInfo, error) {
	if err := checkFolder(path); err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return nil, &OutputError{Path: path, Msg: "a symbolic link to a missing file: give the file itself"}
		}
		return nil, nil
	}
	if err != nil {
		// A path through a file, or a folder that cannot be searched: nothing can be written there.
		return nil, &OutputError{Path: path, Msg: "cannot be written: " + unwrapPath(err).Error()}
	}
	if info.IsDir() {
		return nil, &OutputError{Path: path, Msg: "is a directory: give a file name"}
	}
	if !info.Mode().IsRegular() {
		return nil, &OutputError{Path: path, Msg: "not a regular file"}
	}
	if in := SameAs(info, inputs); in != "" {
		msg := "is the input " + in + " itself"
		if filepath.Clean(in) != filepath.Clean(path) {
			msg = "is the same file as the input " + in
		}
		return nil, &OutputError{Path: path, Msg: msg + ": writing it would replace what is read; give another file"}
	}
	return info, nil
}

// CheckOutput is CheckDest for a new file that replaces whatever is at path: an existing file is
// replaced only when ctxc wrote it as an output and it has not changed since (RecordOutput), or
// with force.
func CheckOutput(path string, inputs []string, force bool) error {
	info, err := CheckDest(path, inputs)
	if err != nil || info == nil || force || WrittenByCtxc(path, info) {
		return err
	}
	return &OutputError{Path: path, Msg: "exists and is not an output ctxc wrote (or it changed since): use --force to replace it"}
}

// SameAs returns the input that is the file info describes (by device and inode), or "".
func SameAs(info fs.FileInfo, inputs []string) string {
	for _, in := range inputs {
		if ii, err := os.Stat(in); err == nil && os.SameFile(ii, info) {
			return in
		}
	}
	return ""
}

// checkFolder: the folder path is written into exists and is a folder.
func checkFolder(path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &OutputError{Path: path, Msg: "the folder " + dir + " does not exist"}
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !info.IsDir():
		return &OutputError{Path: path, Msg: dir + " is not a folder"}
	}
	return nil
}

// CheckApart refuses an archive folder dest that overlaps a source (a session file or a folder
// of sessions): the same folder, a folder below a source (what is written would be read again
// as a source), or the folder that holds a source folder, where that source's archives
// (dest/<its name>/...) would be written into the source itself.
func CheckApart(dest string, srcs []string) error {
	d, err := realAbs(dest)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		a, err := realAbs(s)
		if err != nil {
			continue // a source that cannot be resolved is reported by its reader
		}
		switch {
		case d == a:
			return &OutputError{Path: dest, Msg: "is the source " + s + " itself: give a folder apart from the sources"}
		case within(d, a):
			return &OutputError{Path: dest, Msg: "is inside the source " + s + ": give a folder apart from the sources"}
		}
		info, err := os.Stat(a)
		abs, aerr := filepath.Abs(s)
		if err != nil || aerr != nil || !info.IsDir() {
			continue
		}
		if tree, err := realAbs(filepath.Join(d, filepath.Base(abs))); err == nil && tree == a {
			return &OutputError{Path: dest, Msg: "holds the source " + s + ": its archives would be written into " + s + " itself; give a folder apart from the sources"}
		}
	}
	return nil
}

// realAbs is path absolute with its symbolic links resolved; a path that does not exist yet
// keeps the part that does not exist as written, below its resolved parent.
func realAbs(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	parent, base := filepath.Split(abs)
	if parent == abs || base == "" {
		return abs, nil
	}
	p, err := realAbs(filepath.Clean(parent))
	if err != nil {
		return abs, nil
	}
	return filepath.Join(p, base), nil
}

// within reports whether path is strictly below dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// The record of an output ctxc wrote: its path, size and modification time when written. It is
// kept in the state folder ($XDG_STATE_HOME/ctxc/outputs, else ~/.local/state/ctxc/outputs), one
// small file per output path, replaced when the output is written again.
type outputRecord struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
}

// RecordOutput notes that ctxc has just written the output at path, so that writing it again is
// not refused. A record that cannot be kept only means the next write needs --force.
func RecordOutput(path string) {
	abs, err := realAbs(path)
	if err != nil {
		return
	}
	info, err := os.Stat(abs)
	if err != nil {
		return
	}
	rec, err := recordPath(abs)
	if err != nil {
		return
	}
	data, _ := json.Marshal(outputRecord{Path: abs, Size: info.Size(), ModTime: info.ModTime().UnixNano()})
	if os.MkdirAll(filepath.Dir(rec), 0o700) != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", rec, os.Getpid())
	if os.WriteFile(tmp, data, 0o600) != nil || os.Rename(tmp, rec) != nil {
		os.Remove(tmp)
	}
}

// WrittenByCtxc reports whether the file at path (info) is an output ctxc wrote, unchanged
// since: the same path, size and modification time as RecordOutput noted.
func WrittenByCtxc(path string, info fs.FileInfo) bool {
	abs, err := realAbs(path)
	if err != nil {
		return false
	}
	rec, err := recordPath(abs)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		return false
	}
	var r outputRecord
	if json.Unmarshal(data, &r) != nil {
		return false
	}
	return r.Path == abs && r.Size == info.Size() && r.ModTime == info.ModTime().UnixNano()
}

// recordPath is where the record of the output at abs is kept.
func recordPath(abs string) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "ctxc", "outputs", hex.EncodeToString(sum[:12])+".json"), nil
}

// ReadOnlyError says that a command that writes into a session was given one ctxc never writes
// into (exit 2): an archived session, a session of an OpenClaw store. Reason says why, Hint
// what to do instead.
type ReadOnlyError struct {
	Path   string
	Reason string // such as "archived sessions are read-only"
	Hint   string // such as "use -o FILE to write a compacted copy"
}

func (e *ReadOnlyError) Error() string {
	msg := e.Path + ": " + e.Reason
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

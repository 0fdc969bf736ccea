package storefiles

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// Converted is an agent's session file that is not JSONL (Aider's Markdown chat history, an
// OpenHands conversation's state and its folder of events): the commands read it as its JSONL
// export, as they read a session of a store (the export kept while the file and the paths
// beside it do not change); ctxc never writes into it.
type Converted struct {
	Name   string                               // the agent, in temporary files' names
	Is     func(path string) bool               // path is one of its files
	Export func(path string, w io.Writer) error // the file's JSONL export
	Refuse func(path string) error              // the error of a command that would write into it
	// Found, if set, says whether a file met in a directory walk (path, its base name) is one
	// of its files; by default, Is(path).
	Found func(path, name string) bool
	// Defaults, if set, lists where the agent keeps its files, for search's default paths.
	Defaults func() []string
	// NewSession, if set, says whether an output (-o) names a new session of the agent's,
	// which it checks itself (the error) instead of as an output file.
	NewSession func(output string) (bool, error)
	// Beside, if set, lists other paths the export reads (a folder of events): their sizes
	// and times are part of the state StatSession measures the export in.
	Beside func(path string) []string
}

// Owns reports whether path is one of its files.
func (c *Converted) Owns(path string) bool { return c.Is(path) }

// ReadOnly is the error of a command that would write into the file.
func (c *Converted) ReadOnly(path string) error { return c.Refuse(path) }

// FoundInWalk says whether a file met in a directory walk (path, its base name) is one of its
// files.
func (c *Converted) FoundInWalk(path, name string) bool {
	if c.Found != nil {
		return c.Found(path, name)
	}
	return c.Is(path)
}

// DefaultPaths lists where the agent keeps its files (none when not said).
func (c *Converted) DefaultPaths() []string {
	if c.Defaults == nil {
		return nil
	}
	return c.Defaults()
}

// OpenSession exports the file into an open file that no other program sees, positioned at its
// start. The FileInfo has the file's name and time and the export's size.
func (c *Converted) OpenSession(path string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	key := c.stateKey(path, info)
	if f, size, ok := reopenKept(path, key); ok {
		return f, sessionInfo{name: path, size: size, mod: info.ModTime()}, nil
	}
	f, err := anonymousFile(c.Name)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = c.Export(path, w)
	if err == nil {
		err = w.Flush()
	}
	var out fs.FileInfo
	if err == nil {
		out, err = f.Stat()
	}
	if err == nil {
		_, err = f.Seek(0, 0)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if now, err := os.Stat(path); err == nil && c.stateKey(path, now) == key { // (unchanged meanwhile)
		f = keep(path, key, f, out.Size())
	}
	return f, sessionInfo{name: path, size: out.Size(), mod: info.ModTime()}, nil
}

// stateKey is the state of the file (its size and time) and of the paths beside it.
func (c *Converted) stateKey(path string, info fs.FileInfo) string {
	return fmt.Sprintf("%d.%d;%s", info.Size(), info.ModTime().UnixNano(), c.besideKey(path))
}

// converted are the export sizes measured in this process, by path, for the file's state then.
var converted = struct {
	sync.Mutex
	by map[string]convertedSize
}{by: map[string]convertedSize{}}

type convertedSize struct {
	size, mod, export int64
	beside            string // the sizes and times of the paths Beside lists
}

// besideKey is the state of the paths Beside lists.
func (c *Converted) besideKey(path string) string {
	if c.Beside == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Beside(path) {
		if info, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%d.%d;", info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// StatSession states the file as OpenSession would open it: its export's size, measured once for each
// state of the file (its size and time) in a process.
func (c *Converted) StatSession(path string) (fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: fs.ErrInvalid}
	}
	converted.Lock()
	defer converted.Unlock()
	key := convertedSize{size: info.Size(), mod: info.ModTime().UnixNano(), beside: c.besideKey(path)}
	if got, ok := converted.by[path]; ok && got.size == key.size && got.mod == key.mod && got.beside == key.beside {
		return sessionInfo{name: path, size: got.export, mod: info.ModTime()}, nil
	}
	var n counter
	if err := c.Export(path, &n); err != nil {
		return nil, err
	}
	key.export = int64(n)
	converted.by[path] = key
	return sessionInfo{name: path, size: key.export, mod: info.ModTime()}, nil
}

// RunExported runs a command that writes (compact, repair) on the file, which ctxc never writes
// into: inPlace is the ReadOnly error; an output file (-o; "" for none to check) is never the
// file itself; the command runs on the export written as a temporary file, removed after.
func (c *Converted) RunExported(path string, inPlace bool, output string, force bool, run func(tmp string) error) error {
	if inPlace {
		return c.Refuse(path)
	}
	if output != "" && c.NewSession != nil {
		if ok, err := c.NewSession(output); ok && err != nil {
			return err
		} else if ok {
			output = "" // (checked as a new session)
		}
	}
	if output != "" {
		if err := safewrite.CheckOutput(output, []string{path}, force); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "ctxc-"+c.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "session.jsonl")
	if err := c.exportTo(path, tmp); err != nil {
		return err
	}
	return run(tmp)
}

// exportTo writes the file's export into a new file.
func (c *Converted) exportTo(path, out string) error {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = c.Export(path, w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

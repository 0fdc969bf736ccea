package transcript

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxc/ctxc/internal/openclawstore"
)

// Found says whether a regular file met in a directory walk (path, its base name) is read as
// sessions: a *.jsonl file, with archived its archive *.jsonl.zst, or an OpenClaw store
// (StoreSessions), unless an agent keeps it beside its sessions (AgentAside). Every command
// that walks a directory, on the command line or through MCP, finds the same files.
func Found(path, name string, archived bool) bool {
	session := strings.HasSuffix(name, ".jsonl") || archived && IsSessionName(name)
	return (session || name == openclawstore.FileName) && !AgentAside(path)
}

// AgentAside: a JSONL file an agent keeps beside its sessions (Qwen Code's usage logs under
// ~/.qwen; Gemini CLI's sessions are ~/.gemini/tmp/<project>/chats/*.jsonl, Qwen Code's
// ~/.qwen/projects/<project>/chats/*.jsonl), which a directory walk leaves out.
func AgentAside(path string) bool {
	p := filepath.ToSlash(path)
	for _, home := range []string{"/.gemini/", "/.qwen/"} {
		if !strings.Contains(p, home) { // (a vector search; LastIndex is a byte loop, run on every file of a walk)
			continue
		}
		if i := strings.LastIndex(p, home); i >= 0 && !strings.Contains(p[i:], "/chats/") {
			return true
		}
	}
	return false
}

// StoreSessions is a file as the commands read it: an OpenClaw SQLite store (a *.sqlite file
// with a transcript_events table; in a directory, agents/<agent>/agent/openclaw-agent.sqlite)
// stands for each of its sessions, named STORE#SESSION-ID; any other file for itself.
func StoreSessions(path string) ([]string, error) {
	if !openclawstore.IsStoreFile(path) {
		return []string{path}, nil
	}
	return openclawstore.ListSessions(path)
}

// SessionsBelow is what the folder dir stands for as an argument: the sessions of the files
// Found below it by walk (filepath.WalkDir, or the index's walker), in lexical order, an
// OpenClaw store standing for each of its sessions.
func SessionsBelow(dir string, archived bool, walk func(string, fs.WalkDirFunc) error) ([]string, error) {
	var found []string
	err := walk(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !d.IsDir() && d.Type().IsRegular() && Found(p, d.Name(), archived) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sort.StringsAreSorted(found) { // (a walk's order, but for names such as "a.b" and "a/b")
		sort.Strings(found)
	}
	out := make([]string, 0, len(found))
	for _, p := range found {
		if !openclawstore.NamedAsStore(p) {
			out = append(out, p) // (StoreSessions' answer, without its slice)
			continue
		}
		sessions, err := StoreSessions(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sessions...)
	}
	return out, nil
}

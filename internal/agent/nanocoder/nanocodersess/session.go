// Package nanocodersess reads the sessions of Nanocoder (npm @nanocollective/nanocoder): each
// session is one JSON document, <sessions>/<id>.json, <id> a UUID, written whole (to a temporary
// file renamed over it) each time Nanocoder saves the session, beside sessions.json, the index of
// the folder's sessions. The document holds the session's id, title, provider, model, working
// folder and "messages", every message the conversation holds now (after a compaction, the
// summary and the messages it kept). ctxc names a session by its file and reads it as its export
// (Export): a header line, then each message on a line of its own, for the nanocoder reader of
// internal/transcript. Nothing is ever written into the folder.
package nanocodersess

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
)

// IndexFile is the index of the sessions of a folder, beside them.
const IndexFile = "sessions.json"

// HeaderType is the type of the export's first line.
const HeaderType = "nanocoder"

// idPattern is a session's id as Nanocoder makes and accepts one (a UUID v4, lower case).
var idPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// Files reads sessions as their exports (internal/storefiles).
var Files = &storefiles.Converted{Name: "nanocoder", Is: IsSession, Export: exportFile,
	Refuse: func(p string) error { return ReadOnly(p) }}

// ReadOnly is the error of a command that would write into a session.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a Nanocoder session, which Nanocoder rewrites whole",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is a session's, <id>.json with the index, sessions.json,
// beside it.
func Named(path string) bool {
	base := filepath.Base(path)
	if len(base) != 36+len(".json") || filepath.Ext(base) != ".json" || !idPattern.MatchString(base[:36]) {
		return false
	}
	info, err := os.Stat(filepath.Join(filepath.Dir(path), IndexFile))
	return err == nil && info.Mode().IsRegular()
}

// IsSession reports whether path is a session: a regular file so named, a JSON object whose
// first member is its "id" (as Nanocoder writes it; Continue CLI's sessions, also <uuid>.json
// beside a sessions.json, begin with "sessionId").
func IsSession(path string) bool {
	if !Named(path) {
		return false
	}
	return storefiles.SniffFile(path, 64, Sniff)
}

// Sniff reports whether a document starts as Nanocoder writes a session: "{", then its first
// member, "id".
func Sniff(head []byte) bool { return storefiles.StartsObject(head, `"id"`) }

// Header is the export's first line: the session's id (as `nanocoder --resume` takes it back),
// its title, working folder, provider and model, and how many messages it holds.
type Header struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Title     string `json:"title,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Created   string `json:"createdAt,omitempty"`
	Accessed  string `json:"lastAccessedAt,omitempty"`
	Messages  int    `json:"messages"`
}

// Export writes a session (path: its file) as JSON lines: the Header, then each message of
// "messages" on one line, as compact JSON.
func Export(path string, w io.Writer) error {
	doc, err := storefiles.ReadObject(path)
	if err != nil {
		return err
	}
	list, err := storefiles.ArrayOf(doc.Get("messages"), "messages")
	if err != nil {
		return err
	}
	id := doc.Get("id").String()
	if id == "" {
		id = filepath.Base(path)[:len(filepath.Base(path))-len(filepath.Ext(path))]
	}
	h := Header{Type: HeaderType, SessionID: id, Title: doc.Get("title").String(), Cwd: doc.Get("workingDirectory").String(),
		Provider: doc.Get("provider").String(), Model: doc.Get("model").String(), Created: doc.Get("createdAt").String(),
		Accessed: doc.Get("lastAccessedAt").String(), Messages: len(list)}
	return storefiles.WriteLines(w, h, list, "message")
}

// exportFile is Export; an error names the session.
func exportFile(path string, w io.Writer) error {
	if err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

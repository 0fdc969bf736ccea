// Package clinesess reads the sessions of the Cline CLI (npm cline, its SDK @cline/core): each
// session is a folder, ~/.cline/data/sessions/<id>/, holding <id>.json (its manifest: provider,
// model, working folder), <id>.messages.json (the whole conversation, {"messages":[...]}, every
// message kept) and, once Cline compacted it, <id>.compaction.json (the compacted messages that
// stand for the first source_message_count messages). ctxc names a session by its messages file
// and reads it as its export (Export): a header line, each message on a line of its own, then,
// when the compaction still applies to the messages, its messages, each wrapped, for the cline
// reader of internal/transcript. Nothing is ever written into the folder.
package clinesess

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
	"github.com/tidwall/gjson"
)

// MessagesSuffix ends a session's messages file, <id>.messages.json.
const MessagesSuffix = ".messages.json"

// compactionSuffix ends its compaction state, <id>.compaction.json, beside it.
const compactionSuffix = ".compaction.json"

// HeaderType is the type of the export's first line.
const HeaderType = "cline"

// CompactedType wraps a message of the compaction state in the export.
const CompactedType = "cline_compacted"

// Files reads sessions as their exports (internal/storefiles): a directory walk finds a
// session by its messages file's name; an output so named is a new session (CheckNewSession).
var Files = &storefiles.Converted{Name: "cline", Is: IsSession, Export: exportFile,
	Refuse:     func(p string) error { return ReadOnly(p) },
	Found:      func(path, _ string) bool { return Named(path) },
	Beside:     func(p string) []string { return []string{CompactionPath(p)} },
	NewSession: newSession}

// ReadOnly is the error of a command that would write into a session.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a Cline session, which ctxc only reads",
		Hint: "give -o SESSIONS/<new-id>/<new-id>" + MessagesSuffix + " to write the result as a new Cline session"}
}

// Named reports whether a file's name is a session's messages file, <id>.messages.json in a
// folder named <id>: a directory walk reads such files.
func Named(path string) bool {
	id, ok := strings.CutSuffix(filepath.Base(path), MessagesSuffix)
	if !ok || id == "" {
		return false
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return filepath.Base(filepath.Dir(path)) == id
}

// IsSession reports whether path is a session's messages file: a regular file so named.
func IsSession(path string) bool {
	if !Named(path) {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// CompactionPath is the compaction state beside a messages file.
func CompactionPath(messages string) string {
	return strings.TrimSuffix(messages, MessagesSuffix) + compactionSuffix
}

// Header is the export's first line: the session's id (as `cline --id` takes it back), its
// working folder, how many messages its file holds, and how many of them (displayed ones left
// out) its compaction stands for: 0 when there is none, or when it no longer applies.
type Header struct {
	Type             string `json:"type"`
	SessionID        string `json:"sessionId"`
	Cwd              string `json:"cwd,omitempty"`
	Messages         int    `json:"messages"`
	CompactedThrough int    `json:"compactedThrough,omitempty"`
}

// Export writes a session (path: its messages file) as JSON lines: the Header, each message of
// "messages" on one line, then the compaction's messages as {"type":CompactedType,"index":I,
// "message":M} when it applies (Compaction): the first of them is the compaction's record.
func Export(path string, w io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("not a JSON document (a Cline session that is being written?)")
	}
	msgs := gjson.GetBytes(data, "messages")
	if msgs.Exists() && !msgs.IsArray() {
		return fmt.Errorf(`"messages" is not an array`)
	}
	list := msgs.Array()
	id := strings.TrimSuffix(filepath.Base(path), MessagesSuffix)
	h := Header{Type: HeaderType, SessionID: id, Messages: len(list)}
	if m, err := os.ReadFile(filepath.Join(filepath.Dir(path), id+".json")); err == nil && gjson.ValidBytes(m) {
		h.Cwd = gjson.GetBytes(m, "cwd").String()
	}
	var compacted []gjson.Result
	if state, err := os.ReadFile(CompactionPath(path)); err == nil {
		h.CompactedThrough, compacted = Compaction(state, list)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw.Write(append(line, '\n'))
	var buf bytes.Buffer
	for _, m := range list {
		if err := writeLine(bw, &buf, "", 0, m.Raw); err != nil {
			return err
		}
	}
	for i, m := range compacted {
		if err := writeLine(bw, &buf, CompactedType, i, m.Raw); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeLine writes a message as one line of compact JSON, wrapped in
// {"type":typ,"index":i,"message":...} when typ is set.
func writeLine(w *bufio.Writer, buf *bytes.Buffer, typ string, i int, raw string) error {
	buf.Reset()
	if typ != "" {
		fmt.Fprintf(buf, `{"type":%q,"index":%d,"message":`, typ, i)
	}
	if err := json.Compact(buf, []byte(raw)); err != nil {
		return err
	}
	if typ != "" {
		buf.WriteByte('}')
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// Compaction reads a compaction state against the session's messages as Cline projects it
// (@cline/core's projectSessionCompactionState): the messages shown only (metadata.displayOnly)
// left out, the state applies when it stands for no more messages than there are and, when it
// holds a source_prefix_hash, that hash is the one of the first of them (prefixHash), or else
// its source_last_message_key names the last of them ("id:ID", else "ts:ROLE:TS"); the context
// is then its messages followed by the messages after those. through is 0 when it does not apply.
func Compaction(state []byte, msgs []gjson.Result) (through int, compacted []gjson.Result) {
	if !gjson.ValidBytes(state) {
		return 0, nil
	}
	s := gjson.ParseBytes(state)
	n := int(s.Get("source_message_count").Int())
	var shown []gjson.Result
	for _, m := range msgs {
		if !m.Get("metadata.displayOnly").Bool() {
			shown = append(shown, m)
		}
	}
	if n < 0 || n > len(shown) || !s.Get("messages").IsArray() {
		return 0, nil
	}
	hash, key := s.Get("source_prefix_hash").Str, s.Get("source_last_message_key").Str
	switch {
	case hash != "":
		if prefixHash(shown, n) != hash {
			return 0, nil
		}
	case n == 0 || key == "" || key != messageKey(shown[n-1]):
		return 0, nil
	}
	if n == 0 {
		return 0, nil // (nothing to stand for: the context is the messages)
	}
	return n, s.Get("messages").Array()
}

// messageKey is how Cline names a message in a compaction state (compactionBoundaryKey).
func messageKey(m gjson.Result) string {
	if id := strings.TrimSpace(m.Get("id").Str); id != "" {
		return "id:" + id
	}
	if ts := m.Get("ts"); ts.Type == gjson.Number {
		return "ts:" + m.Get("role").Str + ":" + ts.Raw
	}
	return "content:" + m.Get("role").Str + ":" + m.Get("content").Raw
}

// exportFile is Export; an error names the session.
func exportFile(path string, w io.Writer) error {
	if err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// newSession says whether an output names a new session (Named), and checks it then.
func newSession(output string) (bool, error) {
	if !Named(output) {
		return false, nil
	}
	return true, CheckNewSession(output)
}

// MessageKey is how Cline names a message in a compaction state (compactionBoundaryKey).
func MessageKey(m gjson.Result) string { return messageKey(m) }

// CheckNewSession: a new session's messages file (-o) is <id>.messages.json in a folder <id>
// that does not exist yet, in a folder that does: ctxc creates the session's folder and never
// writes into an existing one (the source's own included).
func CheckNewSession(output string) error {
	dir := filepath.Dir(output)
	if _, err := os.Lstat(dir); err == nil {
		return &safewrite.OutputError{Path: output, Msg: dir + " exists: a Cline session is written as a new folder, never into one"}
	}
	parent := filepath.Dir(dir)
	if info, err := os.Stat(parent); err != nil || !info.IsDir() {
		return &safewrite.OutputError{Path: output, Msg: "the folder " + parent + " does not exist"}
	}
	return nil
}

// SessionsDir is the folder of Cline's sessions as Cline 3.0.65 finds it in its environment:
// $CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, else $CLINE_DIR/data/sessions, else
// ~/.cline/data/sessions ("" when none of them, nor the home, is known).
func SessionsDir(getenv func(string) string) string {
	if d := strings.TrimSpace(getenv("CLINE_SESSION_DATA_DIR")); d != "" {
		return d
	}
	if d := strings.TrimSpace(getenv("CLINE_DATA_DIR")); d != "" {
		return filepath.Join(d, "sessions")
	}
	if d := strings.TrimSpace(getenv("CLINE_DIR")); d != "" {
		return filepath.Join(d, "data", "sessions")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cline", "data", "sessions")
	}
	return ""
}

// MessagesPath is the messages file of session id in the folder of sessions dir; false when id
// is not a plain name (empty, ".", "..", or holding a path separator).
func MessagesPath(dir, id string) (string, bool) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) || dir == "" {
		return "", false
	}
	return filepath.Join(dir, id, id+MessagesSuffix), true
}

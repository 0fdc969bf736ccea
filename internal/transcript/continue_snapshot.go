package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/agent/continuecli"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Continue CLI keeps a session as one JSON document, ~/.continue/sessions/<id>.json, written
// by JSON.stringify(session, undefined, 2) and rewritten whole (fs.writeFileSync: truncated,
// then written) each time the session changes. ctxc reads such a file as a snapshot: the whole
// document, read once when the file is opened and again while it is not complete JSON (the
// agent is writing it), then laid out one record a line, so that every command reads it as it
// reads a JSONL session:
//
//	line 1:   the document's members but "history" (sessionId, title, workspaceDirectory, usage...)
//	line n+1: the n-th item of its "history"
//
// Line numbers and byte offsets of everything read from it are those of that text; the file on
// disk is never written by ctxc.

// continueSniff is how the document starts (after a byte-order mark): "{", a line end, then its
// first member, "sessionId".
func continueSniff(head []byte) bool {
	head = conv.TrimBOM(head)
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	rest := head[1:]
	if len(rest) == 0 || (rest[0] != '\n' && rest[0] != '\r') {
		return false
	}
	return bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(`"sessionId"`))
}

// continueSnapshotTries and continueSnapshotWait bound how long a snapshot waits for the agent
// to finish writing the file (Continue CLI writes a session in one call: milliseconds).
const (
	continueSnapshotTries = 40
	continueSnapshotWait  = 25 * time.Millisecond
)

// continueSnapshot reads f (at path) as a Continue CLI session when it starts as one: ok is false
// for any other file, which is read as it is.
func continueSnapshot(path string, f *os.File) (text []byte, ok bool, err error) {
	var head [64]byte
	n, _ := f.ReadAt(head[:], 0)
	if !continueSniff(head[:n]) {
		return nil, false, nil
	}
	for try := 0; ; try++ {
		doc, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		doc = conv.TrimBOM(doc)
		if json.Valid(doc) {
			text, err := ContinueLines(doc)
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", path, err)
			}
			return text, true, nil
		}
		if try+1 >= continueSnapshotTries {
			return nil, false, &DataError{Path: path, Line: 1,
				Msg: "not a complete JSON document (a Continue CLI session that is being written?)"}
		}
		time.Sleep(continueSnapshotWait)
		// The agent truncates and rewrites the file: read it again from a fresh descriptor.
		if g, err := os.Open(path); err == nil {
			defer g.Close()
			f = g
		}
	}
}

// ContinueLines lays a Continue CLI session document out as ctxc reads it: its members but
// "history" on the first line, then one history item a line, each as compact JSON.
func ContinueLines(doc []byte) ([]byte, error) {
	v := jsonl.Value(bytes.TrimSpace(doc))
	if !v.IsObject() {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	first := true
	var history jsonl.Value
	var err error
	v.Each(func(k string, val jsonl.Value) bool {
		if k == "history" {
			history = val
			return true
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(k)
		out.Write(key)
		out.WriteByte(':')
		err = json.Compact(&out, []byte(val))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	out.WriteString("}\n")
	if history.Exists() && !history.IsArray() {
		return nil, fmt.Errorf(`"history" is not an array`)
	}
	history.Each(func(_ string, item jsonl.Value) bool {
		if err = json.Compact(&out, []byte(item)); err != nil {
			return false
		}
		out.WriteByte('\n')
		return true
	})
	return out.Bytes(), err
}

// IsSnapshot reports whether the file at path is a session its agent rewrites whole (Continue
// CLI's), which ctxc reads as a snapshot and never writes into.
func IsSnapshot(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [64]byte
	n, _ := f.ReadAt(head[:], 0)
	return continueSniff(head[:n])
}

// SnapshotReadOnly is the error of a command that would write into such a session.
func SnapshotReadOnly(path string) *safewrite.ReadOnlyError { return continuecli.ReadOnly(path) }

// continueSessionName: a file met in a directory walk is a Continue CLI session when it is a
// *.json file in a "sessions" folder of Continue's home (~/.continue, or CONTINUE_GLOBAL_DIR
// named .continue), sessions.json (its list of sessions) aside.
func continueSessionName(path, name string) bool {
	if !strings.HasSuffix(name, ".json") || name == "sessions.json" {
		return false
	}
	dir := filepath.Dir(path)
	return filepath.Base(dir) == "sessions" && filepath.Base(filepath.Dir(dir)) == ".continue"
}

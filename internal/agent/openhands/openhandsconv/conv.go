// Package openhandsconv reads the conversations of OpenHands (its software agent SDK, which the
// OpenHands CLI runs): each conversation is a folder, ~/.openhands/conversations/<id>/, holding
// base_state.json (the agent's settings, the workspace, the statistics) and events/, one JSON
// event a file, event-<index>-<event id>.json, as the SDK's EventLog writes them. ctxc names a
// conversation by its base_state.json (a folder stands for every conversation below it) and reads
// it as its export (Export): a header line, then each event on a line of its own, in index order,
// for the openhands reader of internal/transcript. Nothing is ever written into the folder.
package openhandsconv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
	"github.com/tidwall/gjson"
)

// StateFile is the conversation's state, beside its events folder: the file that names the
// conversation for ctxc.
const StateFile = "base_state.json"

// EventsDir is the folder of the events, beside StateFile.
const EventsDir = "events"

// eventName is an event file's name (persistence_const.EVENT_NAME_RE).
var eventName = regexp.MustCompile(`^event-(\d{5,})-([0-9a-fA-F\-]{8,})\.json$`)

// HeaderType is the type of the export's first line.
const HeaderType = "openhands"

// Files reads conversations as their exports (internal/storefiles): a directory walk finds
// a conversation by its StateFile.
var Files = &storefiles.Converted{Name: "openhands", Is: IsConversation, Export: exportFile,
	Refuse: func(p string) error { return ReadOnly(p) },
	Found:  func(path, name string) bool { return name == StateFile && IsConversation(path) },
	Beside: func(p string) []string { return []string{filepath.Join(filepath.Dir(p), EventsDir)} }}

// ReadOnly is the error of a command that would write into a conversation.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is an OpenHands conversation, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is StateFile: a directory walk reads such files.
func Named(name string) bool { return filepath.Base(name) == StateFile }

// IsConversation reports whether path is a conversation's StateFile: a regular file of that name
// with an events folder beside it.
func IsConversation(path string) bool {
	if !Named(path) {
		return false
	}
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	info, err := os.Stat(filepath.Join(filepath.Dir(path), EventsDir))
	return err == nil && info.IsDir()
}

// Header is the export's first line: the conversation's id (its folder's name, as the CLI
// lists it and takes it back with --resume) and its workspace's folder.
type Header struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd,omitempty"`
	Events    int    `json:"events"`
}

// event is one event file, by its index.
type event struct {
	index int
	name  string
}

// Events lists the event files of a conversation's events folder, in index order.
func Events(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var evs []event
	for _, e := range entries {
		m := eventName.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		evs = append(evs, event{n, e.Name()})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].index < evs[j].index })
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = filepath.Join(dir, e.name)
	}
	return out, nil
}

// Export writes a conversation (path: its StateFile) as JSON lines: the Header, then each event
// file's JSON on one line, in index order. An event file that is not JSON is written as one
// line of its text (every reader then reports that line as not valid JSON, naming it).
func Export(path string, w io.Writer) (int, error) {
	evs, err := Events(filepath.Join(filepath.Dir(path), EventsDir))
	if err != nil {
		return 0, err
	}
	h := Header{Type: HeaderType, SessionID: filepath.Base(filepath.Dir(path)), Events: len(evs)}
	if state, err := os.ReadFile(path); err == nil && gjson.ValidBytes(state) {
		h.Cwd = gjson.GetBytes(state, "workspace.working_dir").String()
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	line, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	bw.Write(append(line, '\n'))
	var buf bytes.Buffer
	for _, p := range evs {
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, err
		}
		buf.Reset()
		if json.Compact(&buf, data) != nil {
			buf.Reset()
			buf.Write(bytes.Map(func(r rune) rune {
				if r == '\n' || r == '\r' {
					return ' '
				}
				return r
			}, data))
		}
		buf.WriteByte('\n')
		if _, err := bw.Write(buf.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(evs), bw.Flush()
}

// exportFile is Export; an error names the conversation.
func exportFile(path string, w io.Writer) error {
	if _, err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

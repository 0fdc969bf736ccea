// Package clinetask reads the task histories of Cline's VS Code extension, of the Cline CLI 2.x
// (which runs the extension's core and keeps its tasks under ~/.cline/data/tasks/), of Kilo
// Code's extension and of Roo Code: each task is a folder, <storage>/tasks/<task-id>/, holding
// api_conversation_history.json (the messages as the agent sends them to its model, a JSON
// array of Anthropic message params with "ts" and extras), ui_messages.json (what its panel
// shows), task_metadata.json and, for Cline, context_history.json (its edits of messages' text).
// ctxc names a task by its api_conversation_history.json and reads it as its export (Export): a
// header line, then each message on a line of its own, wrapped with what the agent does with it
// when it resumes the task (Sent, its block edits, the tool results it leaves out or adds), for
// the reader in internal/agent/clinetask. Nothing is ever written into the folder.
package clinetask

import (
	"bufio"
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

// HistoryFile is a task's message file, the file that names the task for ctxc.
const HistoryFile = "api_conversation_history.json"

// contextHistoryFile holds Cline's edits of the messages' text blocks, beside HistoryFile.
const contextHistoryFile = "context_history.json"

// rooExtension is Roo Code's extension id: its tasks follow Roo Code's reload rule.
const rooExtension = "rooveterinaryinc.roo-cline"

// The types of the export's lines.
const (
	ClineHeader = "cline_task" // the header of a task of Cline (extension, CLI 2.x) or Kilo Code
	RooHeader   = "roo_task"   // the header of a task of Roo Code
	MessageType = "task_message"
	// OpenType is the line after a last assistant message whose tool calls have no result:
	// Cline answers them "result missing" when it resumes the task.
	OpenType = "task_open_calls"
)

// MissingResult is the result Cline sends for a tool call the history holds no result of.
const MissingResult = "result missing"

// Files reads tasks as their exports (internal/storefiles): a directory walk finds a task by
// its history file's name in its task folder.
var Files = &storefiles.Converted{Name: "clinetask", Is: IsTask, Export: exportFile,
	Refuse: func(p string) error { return ReadOnly(p) },
	Found:  func(path, _ string) bool { return Named(path) },
	Beside: func(p string) []string {
		return []string{filepath.Join(filepath.Dir(p), contextHistoryFile), taskHistoryPath(p)}
	}}

// ReadOnly is the error of a command that would write into a task.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a task of Cline, Roo Code or Kilo Code's extension, which ctxc only reads",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is a task's history: api_conversation_history.json in a
// folder <task-id> of a folder named tasks. A directory walk reads such files.
func Named(path string) bool {
	if filepath.Base(path) != HistoryFile {
		return false
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return filepath.Base(filepath.Dir(filepath.Dir(path))) == "tasks"
}

// IsTask reports whether path is a task's history: a regular file so named.
func IsTask(path string) bool {
	if !Named(path) {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// IsRoo reports whether a task is Roo Code's: its storage is Roo Code's extension folder.
func IsRoo(path string) bool {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return strings.EqualFold(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(path)))), rooExtension)
}

// taskHistoryPath is the list of tasks of the storage a task is in (<storage>/state/taskHistory.json):
// Cline keeps there, in the task's item, the range of messages it truncated away.
func taskHistoryPath(history string) string {
	storage := filepath.Dir(filepath.Dir(filepath.Dir(history)))
	return filepath.Join(storage, "state", "taskHistory.json")
}

// Header is the export's first line: the task's id (as `cline -T` takes it back), how many
// messages its history holds and, for Cline, the inclusive range of them it truncated away
// (conversationHistoryDeletedRange, [2, end]; none when it truncated nothing).
type Header struct {
	Type         string `json:"type"`
	TaskID       string `json:"taskId"`
	Cwd          string `json:"cwd,omitempty"`
	Messages     int    `json:"messages"`
	DeletedRange []int  `json:"deletedRange,omitempty"`
}

// Line is a message of the export: its index in the history, the message, whether the agent
// sends it when it resumes the task (Sent), the texts Cline's edits give its blocks (Edits, by
// block index), the tool results it leaves out (DropResults: every one of the message) and the
// calls of the message before it, whose results Cline sends first, in their order, each
// "result missing" when the message holds none (Calls).
type Line struct {
	Type        string            `json:"type"`
	Index       int               `json:"index"`
	Sent        bool              `json:"sent"`
	Edits       map[string]string `json:"edits,omitempty"`
	DropResults bool              `json:"dropResults,omitempty"`
	Drop        []string          `json:"drop,omitempty"`
	Calls       []string          `json:"calls,omitempty"`
	Message     json.RawMessage   `json:"message"`
}

// Export writes a task (path: its HistoryFile) as JSON lines: the Header, each message as a
// Line, then, when the last sent message is an assistant's whose calls have no result, an
// OpenType line naming them.
func Export(path string, w io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !gjson.ValidBytes(data) {
		return fmt.Errorf("not a JSON document (a task that is being written?)")
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsArray() {
		return fmt.Errorf("not a JSON array of messages")
	}
	msgs := doc.Array()
	id := filepath.Base(filepath.Dir(path))
	h := Header{Type: ClineHeader, TaskID: id, Messages: len(msgs)}
	var lines []Line
	var open []string
	if IsRoo(path) {
		h.Type = RooHeader
		lines = rooLines(msgs)
	} else {
		h.DeletedRange, h.Cwd = taskItem(path, id)
		lines, open = clineLines(msgs, h.DeletedRange, contextEdits(filepath.Join(filepath.Dir(path), contextHistoryFile)))
	}
	return writeExport(w, h, lines, open)
}

// writeExport writes the header, the lines and the open calls' line.
func writeExport(w io.Writer, h Header, lines []Line, open []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return err
	}
	for i := range lines {
		lines[i].Type = MessageType
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	if len(open) > 0 {
		if err := enc.Encode(map[string]any{"type": OpenType, "calls": open}); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// taskItem reads the task's item in its storage's task list: its deleted range and working folder.
func taskItem(path, id string) (deleted []int, cwd string) {
	data, err := os.ReadFile(taskHistoryPath(path))
	if err != nil || !gjson.ValidBytes(data) {
		return nil, ""
	}
	gjson.ParseBytes(data).ForEach(func(_, item gjson.Result) bool {
		if item.Get("id").String() != id {
			return true
		}
		cwd = item.Get("cwdOnTaskInitialization").String()
		if r := item.Get("conversationHistoryDeletedRange").Array(); len(r) == 2 {
			deleted = []int{int(r[0].Int()), int(r[1].Int())}
		}
		return false
	})
	return deleted, cwd
}

// exportFile is Export; an error names the task.
func exportFile(path string, w io.Writer) error {
	if err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

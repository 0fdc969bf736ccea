// Package miniswetraj reads the trajectories of mini-swe-agent
// (github.com/SWE-agent/mini-swe-agent): each run of one task is one JSON document,
// <instance>.traj.json, which mini-swe-agent rewrites whole after each step (json.dumps,
// indented). It holds "info" (the exit status, the submission, "model_stats": the cost and the
// model calls, the run's configuration, mini_version), "messages", every message of the agent's
// conversation with its model as it keeps them (each answer's and each observation's "extra":
// the provider's response with its usage, the actions, the output), "trajectory_format" and,
// from a benchmark run, "instance_id". ctxc names a trajectory by its file and reads it as its
// export (Export): a header line, then each message on a line of its own, for the
// mini-swe-agent reader. Nothing is ever written into the file.
package miniswetraj

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
	"github.com/tidwall/gjson"
)

// Ext is the extension mini-swe-agent gives a trajectory: <instance>.traj.json.
const Ext = ".traj.json"

// HeaderType is the type of the export's first line.
const HeaderType = "mini-swe-agent"

// headBytes is how much of a file is read to tell whether mini-swe-agent wrote it.
const headBytes = 512

// members are the top-level members mini-swe-agent writes, one of which opens a trajectory.
var members = []string{`"info"`, `"messages"`, `"trajectory_format"`, `"instance_id"`}

// Files reads trajectories as their exports (internal/storefiles): a directory walk finds a
// trajectory by its name and its members.
var Files = &storefiles.Converted{Name: "mini-swe-agent", Is: IsTrajectory, Export: exportFile,
	Refuse: func(p string) error { return ReadOnly(p) },
	Found:  func(path, name string) bool { return Named(name) && IsTrajectory(path) },
}

// ReadOnly is the error of a command that would write into a trajectory.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a mini-swe-agent trajectory, which mini-swe-agent rewrites whole",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is a trajectory's, <instance>.traj.json.
func Named(path string) bool {
	base := filepath.Base(path)
	return strings.HasSuffix(base, Ext) && len(base) > len(Ext)
}

// IsTrajectory reports whether path is a trajectory: a regular file so named, a JSON object
// whose first member is one mini-swe-agent writes.
func IsTrajectory(path string) bool {
	if !Named(path) {
		return false
	}
	return storefiles.SniffFile(path, headBytes, Sniff)
}

// Sniff reports whether a document starts as mini-swe-agent writes a trajectory: "{", then one
// of its members.
func Sniff(head []byte) bool { return storefiles.StartsObject(head, members...) }

// Header is the export's first line: the trajectory's name (its instance_id, else its file's),
// how the run ended, the model's statistics, mini-swe-agent's version and the trajectory's
// format, and how many messages it holds.
type Header struct {
	Type             string          `json:"type"`
	SessionID        string          `json:"sessionId"`
	ExitStatus       string          `json:"exitStatus,omitempty"`
	ModelStats       json.RawMessage `json:"modelStats,omitempty"`
	Version          string          `json:"miniVersion,omitempty"`
	TrajectoryFormat string          `json:"trajectoryFormat,omitempty"`
	Messages         int             `json:"messages"`
}

// Export writes a trajectory (path: its file) as JSON lines: the Header, then each message of
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
	return storefiles.WriteLines(w, header(path, doc, len(list)), list, "message")
}

// header is the export's Header of a trajectory of n messages.
func header(path string, doc gjson.Result, n int) Header {
	id := doc.Get("instance_id").String()
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(path), Ext)
	}
	h := Header{Type: HeaderType, SessionID: id, ExitStatus: doc.Get("info.exit_status").String(),
		Version: doc.Get("info.mini_version").String(), TrajectoryFormat: doc.Get("trajectory_format").String(), Messages: n}
	if st := doc.Get("info.model_stats"); st.IsObject() {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(st.Raw)) == nil {
			h.ModelStats = buf.Bytes()
		}
	}
	return h
}

// exportFile is Export; an error names the trajectory.
func exportFile(path string, w io.Writer) error {
	if err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Package sweagenttraj reads the trajectories of SWE-agent (github.com/SWE-agent/SWE-agent): each
// run of one task is one JSON document, <instance>.traj, which SWE-agent rewrites whole after each
// step (json.dumps, indented). It holds "history", every message of the agent's conversation
// with its model (the system prompt, the demonstrations, the task, each response with its
// thought, action and tool calls, each observation), "trajectory", the steps (each action and
// its observation, with the query the model was sent), "info" (the exit status, the
// submission, "model_stats": the tokens sent and received, the calls, the cost) and the
// environment's name. ctxc names a trajectory by its file and reads it as its export (Export):
// a header line, then each message of "history" on a line of its own, for the swe-agent
// reader. Nothing is ever written into the file.
package sweagenttraj

import (
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

// Ext is the extension SWE-agent gives a trajectory: <instance>.traj.
const Ext = ".traj"

// HeaderType is the type of the export's first line.
const HeaderType = "swe-agent"

// headBytes is how much of a file is read to tell whether SWE-agent wrote it.
const headBytes = 512

// members are the top-level members SWE-agent writes, one of which opens a trajectory.
var members = []string{`"environment"`, `"trajectory"`, `"history"`, `"info"`, `"attempts"`, `"replay_config"`}

// Files reads trajectories as their exports (internal/storefiles): a directory walk finds a
// trajectory by its name and its members.
var Files = &storefiles.Converted{Name: "swe-agent", Is: IsTrajectory, Export: exportFile,
	Refuse:   func(p string) error { return ReadOnly(p) },
	Found:    func(path, name string) bool { return Named(name) && IsTrajectory(path) },
	Defaults: DefaultPaths,
}

// ReadOnly is the error of a command that would write into a trajectory.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a SWE-agent trajectory, which SWE-agent rewrites whole",
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

// Named reports whether a file's name is a trajectory's, <instance>.traj.
func Named(path string) bool {
	base := filepath.Base(path)
	return strings.HasSuffix(base, Ext) && len(base) > len(Ext)
}

// IsTrajectory reports whether path is a trajectory: a regular file so named, a JSON object
// whose first member is one SWE-agent writes.
func IsTrajectory(path string) bool {
	if !Named(path) {
		return false
	}
	return storefiles.SniffFile(path, headBytes, Sniff)
}

// Sniff reports whether a document starts as SWE-agent writes a trajectory: "{", then one of
// its members.
func Sniff(head []byte) bool { return storefiles.StartsObject(head, members...) }

// Header is the export's first line: the trajectory's name (its file's, the task's instance),
// its environment, how it ended, the model's statistics as SWE-agent counted them, the history
// processors and the system-as-user setting of the run's agent (its "replay_config", when the
// file holds it), and how many messages its history holds.
type Header struct {
	Type              string          `json:"type"`
	SessionID         string          `json:"sessionId"`
	Environment       string          `json:"environment,omitempty"`
	ExitStatus        string          `json:"exitStatus,omitempty"`
	ModelStats        json.RawMessage `json:"modelStats,omitempty"`
	HistoryProcessors json.RawMessage `json:"historyProcessors,omitempty"`
	SystemAsUser      bool            `json:"systemAsUser,omitempty"`
	Messages          int             `json:"messages"`
}

// Export writes a trajectory (path: its file) as JSON lines: the Header, then each message of
// "history" on one line, as compact JSON. A trajectory of SWE-agent's retry agent without a
// "history" of its own (no attempt chosen yet) exports its last attempt's.
func Export(path string, w io.Writer) error {
	doc, err := storefiles.ReadObject(path)
	if err != nil {
		return err
	}
	list, err := history(doc)
	if err != nil {
		return err
	}
	return storefiles.WriteLines(w, header(path, doc, len(list)), list, "history message")
}

// history is the trajectory's "history" (its last attempt's, when it has none of its own).
func history(doc gjson.Result) ([]gjson.Result, error) {
	msgs := doc.Get("history")
	if !msgs.Exists() {
		if atts := doc.Get("attempts").Array(); len(atts) > 0 {
			msgs = atts[len(atts)-1].Get("history")
		}
	}
	return storefiles.ArrayOf(msgs, "history")
}

// header is the export's Header of a trajectory of n messages.
func header(path string, doc gjson.Result, n int) Header {
	id := strings.TrimSuffix(filepath.Base(path), Ext)
	h := Header{Type: HeaderType, SessionID: id, Environment: doc.Get("environment").String(),
		ExitStatus: doc.Get("info.exit_status").String(), Messages: n}
	h.ModelStats = compact(doc.Get("info.model_stats"), gjson.JSON)
	rc := doc.Get("replay_config")
	if rc.Type == gjson.String && gjson.Valid(rc.Str) { // (SWE-agent 1.0 writes it as a JSON string)
		rc = gjson.Parse(rc.Str)
	}
	h.HistoryProcessors = compact(rc.Get("agent.history_processors"), gjson.JSON)
	h.SystemAsUser = rc.Get("agent.model.convert_system_to_user").Bool()
	return h
}

// compact is v as compact JSON, when it is an object or an array (t: gjson.JSON); else nil.
func compact(v gjson.Result, t gjson.Type) json.RawMessage {
	if v.Type != t {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(v.Raw)) != nil {
		return nil
	}
	return buf.Bytes()
}

// exportFile is Export; an error names the trajectory.
func exportFile(path string, w io.Writer) error {
	if err := Export(path, w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// DefaultPaths are where SWE-agent writes its trajectories when run from the folder ctxc runs
// in: $SWE_AGENT_TRAJECTORY_DIR, else ./trajectories (its checkout's), when they exist.
func DefaultPaths() []string {
	var out []string
	if d := os.Getenv("SWE_AGENT_TRAJECTORY_DIR"); d != "" {
		out = append(out, d)
	}
	if wd, err := os.Getwd(); err == nil {
		out = append(out, filepath.Join(wd, "trajectories"))
	}
	return out
}

package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
)

// Cline CLI 3.0.65 runs the hook files of ~/.cline/hooks after each tool call (PostToolUse) and
// adds the "contextModification" of their JSON answer, as a <hook_context> user message, after
// the tool's result; it stores that message in the session, so a resume sends it again. It
// never runs a PreCompact hook, and the answers of its other hooks reach no request. So ctxc
// answers a tool call that comes after Cline compacted the session, once per compaction, with
// the facts of the context before the compaction that the compacted context lacks.

// clineInput is the part of Cline's hook input the guard reads.
type clineInput struct {
	HookName       string   `json:"hookName"`
	TaskID         string   `json:"taskId"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	SessionContext struct {
		RootSessionID string `json:"rootSessionId"`
	} `json:"sessionContext"`
}

// clineFrame opens ctxc's note in Cline: it comes after a tool's result, not with the summary.
const clineFrame = NotePrefix + "This conversation was compacted. ctxc (a tool the user installed) copied these facts " +
	"of it from the session file: the compacted context lacks them. They are a record of the conversation " +
	"so far, not a new message from the user.\n\n"

// runTool answers Cline's hook: the note after the session's newest compaction, at the first
// tool call after it; nothing otherwise.
func runTool(ctx context.Context, agent string, in io.Reader, o Options) (stdout []byte, out Outcome) {
	out = Outcome{Agent: agent}
	start := time.Now()
	defer func() { out.Elapsed = time.Since(start) }()
	input, err := readClineInput(in)
	out.Input = Input{SessionID: input.SessionContext.RootSessionID, Event: input.HookName}
	if err != nil {
		return nil, failed(out, err)
	}
	if input.HookName != "tool_result" {
		out.Action, out.Detail = "skip", fmt.Sprintf("event %q: nothing to do", input.HookName)
		return nil, out
	}
	path, state, err := clineCompacted(input, o)
	out.Input.TranscriptPath, out.Input.Cwd = path, input.cwd()
	if err != nil || state == nil {
		if err != nil {
			return nil, failed(out, err)
		}
		out.Action, out.Detail = "skip", "the session is not compacted"
		return nil, out
	}
	answered, err := clineAnswered(o.StateDir, input.SessionContext.RootSessionID, state)
	if err != nil || answered {
		if err != nil {
			return nil, failed(out, err)
		}
		out.Action, out.Detail = "skip", "its newest compaction has had its note"
		return nil, out
	}
	stdout, out = clineNote(ctx, out, o)
	if out.Action == "error" {
		os.Remove(clineMark(o.StateDir, input.SessionContext.RootSessionID, state)) // the next tool call tries again
	}
	return stdout, out
}

// readClineInput reads Cline's hook input from stdin.
func readClineInput(in io.Reader) (clineInput, error) {
	var input clineInput
	data, err := readObject(in)
	if err != nil {
		return input, err
	}
	if err := json.Unmarshal(data, &input); err != nil {
		return input, fmt.Errorf("hook input: %w", err)
	}
	return input, nil
}

// cwd is the session's workspace, its first root.
func (c clineInput) cwd() string {
	if len(c.WorkspaceRoots) > 0 {
		return c.WorkspaceRoots[0]
	}
	return ""
}

// clineCompacted finds the session's messages file from the input's root session id and reads
// its compaction state (nil when it has none).
func clineCompacted(input clineInput, o Options) (path string, state []byte, err error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	path, ok := clinesess.MessagesPath(clinesess.SessionsDir(getenv), input.SessionContext.RootSessionID)
	if !ok {
		return "", nil, fmt.Errorf("hook input has no usable sessionContext.rootSessionId (%q)", input.SessionContext.RootSessionID)
	}
	state, err = os.ReadFile(clinesess.CompactionPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	return path, state, err
}

// clineMark is the file that says the compaction whose state is state, of session id, had
// its note.
func clineMark(dir, id string, state []byte) string {
	sum := sha256.Sum256(state)
	return filepath.Join(dir, "cline", id+"."+hex.EncodeToString(sum[:8]))
}

// clineAnswered claims the note of the compaction whose state is state: false the first time
// (the mark is made: of the hooks of tool calls run side by side, one answers), true after.
func clineAnswered(dir, id string, state []byte) (bool, error) {
	if dir == "" {
		return false, errors.New("no state folder to note the compactions answered in ($XDG_STATE_HOME or $HOME)")
	}
	mark := clineMark(dir, id, state)
	if err := os.MkdirAll(filepath.Dir(mark), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, f.Close()
}

// clineNote builds the note (after the memory flush, when asked for) and Cline's answer.
func clineNote(ctx context.Context, out Outcome, o Options) ([]byte, Outcome) {
	note, err := flushAndNote(ctx, &out, o, clineFrame, false, false)
	if err != nil {
		return nil, failed(out, err)
	}
	switch {
	case note.basis != basisLost:
		out.Action, out.Detail = "skip", "the compaction state does not apply to the messages"
		return nil, out
	case note.carried == 0:
		out.Action, out.Detail = "skip", "no fact to carry ("+note.basis+")"
		return nil, out
	}
	b, err := json.Marshal(map[string]string{"contextModification": note.text})
	if err != nil {
		return nil, failed(out, err)
	}
	out.Action = "note"
	return append(b, '\n'), out
}

package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
)

// FuzzHookInput: whatever an agent (or anything else) writes on the hook's stdin, the guard
// answers with nothing or with one well-formed SessionStart answer, and always says why.
func FuzzHookInput(f *testing.F) {
	f.Add([]byte(hookInput(example, "SessionStart", "compact")))
	f.Add([]byte(hookInput(example, "SessionStart", "resume")))
	f.Add([]byte(`{"hook_event_name":"SessionStart","source":"compact","transcript_path":""}`))
	f.Add([]byte(`{"hook_event_name":"SessionStart","source":"compact","transcript_path":"../../testdata/fixtures/pi-v1-two-compactions.jsonl"}`))
	f.Add([]byte(`{"hook_event_name":1}`))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, oc := ClaudeCode(context.Background(), bytes.NewReader(in), Options{Timeout: 10 * time.Second})
		switch oc.Action {
		case "note":
			var v struct {
				H struct {
					Event   string `json:"hookEventName"`
					Context string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(out, &v); err != nil || v.H.Event != "SessionStart" || v.H.Context == "" {
				t.Fatalf("a note that is not a SessionStart answer: %q", out)
			}
		case "skip", "error":
			if len(out) != 0 {
				t.Fatalf("%s with output %q", oc.Action, out)
			}
			if oc.Action == "error" && oc.Detail == "" {
				t.Fatal("an error without a reason")
			}
		default:
			t.Fatalf("action %q", oc.Action)
		}
	})
}

// FuzzClineHookInput: whatever Cline (or anything else) writes on the hook's stdin, the guard
// answers with nothing or with one well-formed contextModification answer, and says why.
func FuzzClineHookInput(f *testing.F) {
	f.Add([]byte(clineHookInput("tool_result", "1_x")))
	f.Add([]byte(clineHookInput("agent_start", "1_x")))
	f.Add([]byte(clineHookInput("tool_result", "..")))
	f.Add([]byte(`{"hookName":"tool_result","sessionContext":{"rootSessionId":5}}`))
	f.Add([]byte("\xff\xfe"))
	home := f.TempDir()
	clineSessionDir(f, filepath.Join(home, "sessions"), clineState)
	f.Fuzz(func(t *testing.T, in []byte) {
		o := Options{Timeout: 10 * time.Second, StateDir: t.TempDir(),
			Getenv: func(k string) string {
				return map[string]string{"CLINE_SESSION_DATA_DIR": filepath.Join(home, "sessions")}[k]
			}}
		out, oc, _ := Run(context.Background(), agent.Cline, bytes.NewReader(in), o)
		switch oc.Action {
		case "note":
			var v map[string]string
			if err := json.Unmarshal(out, &v); err != nil || !strings.HasPrefix(v["contextModification"], NotePrefix) {
				t.Fatalf("a note that is not Cline's answer: %q", out)
			}
		case "skip", "error":
			if len(out) != 0 || oc.Detail == "" {
				t.Fatalf("%s with output %q, reason %q", oc.Action, out, oc.Detail)
			}
		default:
			t.Fatalf("action %q", oc.Action)
		}
	})
}

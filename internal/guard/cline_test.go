package guard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
)

// clineSessionDir writes a Cline session, id 1_x, under sessions: a request with a URL, an
// answer, a later request, and (state non-empty) a compaction state standing for the first two.
func clineSessionDir(t testing.TB, sessions, state string) string {
	t.Helper()
	dir := filepath.Join(sessions, "1_x")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	msgs := `{"messages":[{"id":"a","role":"user","content":[{"type":"text","text":"Deploy the build to https://ci.example.com/builds/42 when it is green."}]},` +
		`{"id":"b","role":"assistant","content":[{"type":"text","text":"OK"}]},` +
		`{"id":"c","role":"user","content":[{"type":"text","text":"Now look at the notes."}]}]}`
	os.WriteFile(filepath.Join(dir, "1_x.messages.json"), []byte(msgs), 0o644)
	if state != "" {
		os.WriteFile(filepath.Join(dir, "1_x.compaction.json"), []byte(state), 0o644)
	}
	return dir
}

const clineState = `{"version":1,"source_message_count":2,"source_last_message_key":"id:b","messages":[{"role":"user","content":[{"type":"text","text":"Context summary:\n\nThe user asked for a deploy."}],"metadata":{"kind":"compaction_summary"}}]}`

func clineHookInput(event, id string) string {
	b, _ := json.Marshal(map[string]any{"hookName": event, "taskId": "conv_1", "sessionContext": map[string]string{"rootSessionId": id},
		"workspaceRoots": []string{"/tmp/proj"}})
	return string(b)
}

func clineRun(in string, o Options) ([]byte, Outcome) {
	out, oc, _ := Run(context.Background(), agent.Cline, strings.NewReader(in), o)
	return out, oc
}

// TestClineNote: after Cline compacted the session, the first tool call's hook answers with the
// facts the compacted context lacks (the URL), as contextModification; later ones answer nothing.
func TestClineNote(t *testing.T) {
	home := t.TempDir()
	clineSessionDir(t, filepath.Join(home, ".cline", "data", "sessions"), clineState)
	o := Options{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, StateDir: filepath.Join(home, "state")}
	out, oc := clineRun(clineHookInput("tool_result", "1_x"), o)
	if oc.Action != "note" {
		t.Fatalf("outcome %+v", oc)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	note := got["contextModification"]
	if !strings.HasPrefix(note, NotePrefix) || !strings.Contains(note, "https://ci.example.com/builds/42") || len(got) != 1 {
		t.Errorf("answer:\n%s", out)
	}
	if strings.Contains(note, "Now look at the notes.") {
		t.Errorf("the note carries a request the compacted context holds:\n%s", note)
	}
	if out, oc := clineRun(clineHookInput("tool_result", "1_x"), o); len(out) != 0 || oc.Action != "skip" {
		t.Errorf("second call: %+v %s", oc, out)
	}
	// a new compaction state: a new note
	clineSessionDir(t, filepath.Join(home, ".cline", "data", "sessions"), strings.Replace(clineState, "a deploy", "a deploy, again", 1))
	if _, oc := clineRun(clineHookInput("tool_result", "1_x"), o); oc.Action != "note" {
		t.Errorf("after a new compaction: %+v", oc)
	}
}

// TestClineNothingToSay: every other case answers nothing on stdout (Cline reads an empty
// answer as no control) and says why.
func TestClineNothingToSay(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, "sessions")
	clineSessionDir(t, sessions, "")
	other := filepath.Join(home, "other")
	clineSessionDir(t, other, `{"version":1,"source_message_count":2,"source_last_message_key":"id:z","messages":[{"role":"user","content":"s"}]}`)
	env := func(dir string) func(string) string {
		return func(k string) string { return map[string]string{"CLINE_SESSION_DATA_DIR": dir}[k] }
	}
	for _, c := range []struct {
		name, in  string
		sessions  string
		state     string
		action    string
		detailHas string
	}{
		{"not compacted", clineHookInput("tool_result", "1_x"), sessions, "st", "skip", "not compacted"},
		{"state that no longer applies", clineHookInput("tool_result", "1_x"), other, "st", "skip", "does not apply"},
		{"another event", clineHookInput("agent_start", "1_x"), sessions, "st", "skip", "nothing to do"},
		{"no session", clineHookInput("tool_result", "9_none"), sessions, "st", "skip", "not compacted"},
		{"a path for an id", clineHookInput("tool_result", "../1_x"), sessions, "st", "error", "rootSessionId"},
		{"no id", `{"hookName":"tool_result"}`, sessions, "st", "error", "rootSessionId"},
		{"empty", "", sessions, "st", "error", "no hook input"},
		{"not JSON", "{", sessions, "st", "error", "not a JSON object"},
		{"wrong types", `{"hookName":1}`, sessions, "st", "error", "hook input"},
	} {
		o := Options{Getenv: env(c.sessions), StateDir: filepath.Join(home, c.state), Timeout: 10 * time.Second}
		out, oc := clineRun(c.in, o)
		if len(out) != 0 || oc.Action != c.action || !strings.Contains(oc.Detail, c.detailHas) {
			t.Errorf("%s: %s %q, output %q", c.name, oc.Action, oc.Detail, out)
		}
	}
	// no state folder to mark the compaction answered: nothing, rather than a note at every call
	clineSessionDir(t, sessions, clineState)
	if out, oc := clineRun(clineHookInput("tool_result", "1_x"), Options{Getenv: env(sessions)}); len(out) != 0 || oc.Action != "error" {
		t.Errorf("no state folder: %+v %s", oc, out)
	}
}

// TestClineSessionsDir: the hook finds the sessions where Cline keeps them.
func TestClineSessionsDir(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		root string
	}{
		{map[string]string{"HOME": home}, filepath.Join(home, ".cline", "data", "sessions")},
		{map[string]string{"HOME": home, "CLINE_DIR": filepath.Join(home, "c")}, filepath.Join(home, "c", "data", "sessions")},
		{map[string]string{"HOME": home, "CLINE_DATA_DIR": filepath.Join(home, "d")}, filepath.Join(home, "d", "sessions")},
		{map[string]string{"HOME": home, "CLINE_DATA_DIR": filepath.Join(home, "d"), "CLINE_SESSION_DATA_DIR": filepath.Join(home, "s")}, filepath.Join(home, "s")},
	} {
		clineSessionDir(t, c.root, clineState)
		o := Options{Getenv: func(k string) string { return c.env[k] }, StateDir: t.TempDir()}
		if _, oc := clineRun(clineHookInput("tool_result", "1_x"), o); oc.Action != "note" || oc.Input.TranscriptPath != filepath.Join(c.root, "1_x", "1_x.messages.json") {
			t.Errorf("%v: %+v", c.env, oc)
		}
	}
}

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClineSessionCommands: a session Cline 3.0.65 wrote (its folder under
// ~/.cline/data/sessions), named by its messages file, read by the commands as its export: found
// in a folder beside Cline's logs and as search's default root, resumed by `cline --id`; compact
// never writes into it.
func TestClineSessionCommands(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, ".cline", "data", "sessions")
	id := "1795898039634_e06ml"
	src := filepath.Join("../testdata/cline/sessions", id)
	os.MkdirAll(filepath.Join(sessions, id), 0o755)
	for _, f := range []string{id + ".json", id + ".messages.json"} {
		copyTo(t, filepath.Join(src, f), filepath.Join(sessions, id, f))
	}
	logs := filepath.Join(home, ".cline", "data", "logs")
	os.MkdirAll(logs, 0o755)
	os.WriteFile(filepath.Join(logs, "hooks.jsonl"), []byte(`{"event":"tool_result"}`+"\n"), 0o644)
	path := filepath.Join(sessions, id, id+".messages.json")
	before, _ := os.ReadFile(path)

	if st := statsOf(t, filepath.Join(home, ".cline")); st.Format != "cline" || st.EffMessages != 6 || st.ToolCalls != 1 ||
		st.Messages.User != 2 || st.Usage == nil || st.Usage.Responses != 3 {
		t.Errorf("stats of ~/.cline: %+v", st)
	}
	if code, out, errOut := runCLI(t, t.TempDir(), "grep", "Second question", filepath.Join(home, ".cline")); code != 0 ||
		!strings.Contains(out, path+":6: user: Second question") {
		t.Errorf("grep (exit %d, %s): %s", code, errOut, out)
	}
	code, out, errOut := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", path)
	if code != 0 || strings.Count(out, "\n") != 6 || strings.Contains(out, "<user_input") || !strings.Contains(out, `"content":"Second question"`) {
		t.Errorf("load (exit %d, %s):\n%s", code, errOut, out)
	}

	t.Setenv("HOME", home)
	code, out, errOut = runCLI(t, t.TempDir(), "search", "--db", filepath.Join(t.TempDir(), "idx"), "second")
	if code != 0 || !strings.Contains(out, path) || !strings.Contains(out, "cd /tmp/clh2/proj && cline --id "+id) {
		t.Errorf("search with no PATH (exit %d, %s): %s", code, errOut, out)
	}

	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1", path)
	if code != 2 || !strings.Contains(errOut, "is a Cline session, which ctxc only reads") {
		t.Errorf("compact in place: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the session changed")
	}
}

// TestClineCompactionInGrep: the messages Cline's compaction kept after its record are in the
// context, the ones it stands for are covered by it.
func TestClineCompactionInGrep(t *testing.T) {
	fixture := "../testdata/fixtures/cline-3.0-own-compaction.jsonl"
	code, out, errOut := runCLI(t, t.TempDir(), "grep", "--json", "OK", fixture)
	if code != 0 || strings.Count(out, `"match":true`) != 3 || strings.Contains(out, "covered_by") {
		t.Errorf("grep after the compaction (exit %d, %s): %s", code, errOut, out)
	}
	code, out, _ = runCLI(t, t.TempDir(), "grep", "--json", "use the tool", fixture)
	if code != 0 || !strings.Contains(out, `"line":2,`) || !strings.Contains(out, `"covered_by":8`) {
		t.Errorf("grep before the compaction (exit %d): %s", code, out)
	}
}

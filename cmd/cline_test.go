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

// TestClineCompactNewSession: compact -o SESSIONS/<new-id>/<new-id>.messages.json writes a new
// session folder (manifest with the new id, every message, ctxc's compaction state), read back as
// a compaction; -o onto the source or onto a session folder that exists is refused, nothing
// changed; -o naming no session is refused unless --output-format ctxc asks for a ctxc file.
func TestClineCompactNewSession(t *testing.T) {
	sessions := filepath.Join(t.TempDir(), "sessions")
	id := "1795898039634_e06ml"
	src := filepath.Join("../testdata/cline/sessions", id)
	os.MkdirAll(filepath.Join(sessions, id), 0o755)
	for _, f := range []string{id + ".json", id + ".messages.json"} {
		copyTo(t, filepath.Join(src, f), filepath.Join(sessions, id, f))
	}
	path := filepath.Join(sessions, id, id+".messages.json")
	// a tool result long enough for its session to be worth compacting
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "hello from notes", strings.Repeat("the build must stay green; ", 300), 1)), 0o644)
	before := folderBytes(t, filepath.Dir(path))
	compact := func(extra ...string) (int, string) {
		args := append([]string{"compact", "--provider", "extractive", "--threshold", "1500", "--target", "300", "--keep-tail", "2", "--tiers", "80,0,0"}, extra...)
		code, _, errOut := runCLI(t, t.TempDir(), append(args, path)...)
		return code, errOut
	}
	newID := "1795900000000_ctxc1"
	out := filepath.Join(sessions, newID, newID+".messages.json")
	if code, errOut := compact("-o", out); code != 0 || !strings.Contains(errOut, "cline --id "+newID) {
		t.Fatalf("compact -o %s: exit %d: %s", out, code, errOut)
	}
	written := folderBytes(t, filepath.Dir(out))
	if len(written) != 3 || !strings.Contains(written[newID+".json"], `"session_id":"`+newID+`"`) ||
		written[newID+".messages.json"] == "" || !strings.Contains(written[newID+".compaction.json"], `"source_last_message_key":"id:`) {
		t.Errorf("the new session's folder: %v", written)
	}
	if st := statsOf(t, out); st.Format != "cline" || st.Compactions != 1 || st.EffMessages >= 6 {
		t.Errorf("stats of the new session: %+v", st)
	}
	code, lo, errOut := runCLI(t, t.TempDir(), "load", "-q", "--as", "openai", out)
	if code != 0 || !strings.Contains(lo, "[ctxc] The earlier part of this conversation was compacted") {
		t.Errorf("load of the new session (exit %d, %s):\n%s", code, errOut, lo)
	}
	for _, o := range []string{path, out} {
		if code, errOut := compact("-o", o); code != 2 || !strings.Contains(errOut, "never into one") {
			t.Errorf("compact -o %s: exit %d: %s", o, code, errOut)
		}
	}
	other := filepath.Join(t.TempDir(), "out.jsonl")
	if code, errOut := compact("-o", other); code == 0 || !strings.Contains(errOut, "<new-id>.messages.json") {
		t.Errorf("compact -o %s: exit %d: %s", other, code, errOut)
	}
	if code, errOut := compact("--output-format", "ctxc", "-o", other); code != 0 {
		t.Errorf("compact --output-format ctxc -o %s: exit %d: %s", other, code, errOut)
	}
	if diff := folderDiff(before, folderBytes(t, filepath.Dir(path))); diff != "" {
		t.Errorf("the source's folder changed: %s", diff)
	}
	if diff := folderDiff(written, folderBytes(t, filepath.Dir(out))); diff != "" {
		t.Errorf("the new session's folder changed: %s", diff)
	}
}

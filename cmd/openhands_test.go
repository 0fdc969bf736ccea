package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenhandsConversationCommands: an OpenHands conversation (a public one, testdata/openhands)
// read by the commands through its base_state.json: found in a folder and by search with no
// PATH (~/.openhands/conversations), its resume command the CLI's; never written: compact in
// place is refused.
func TestOpenhandsConversationCommands(t *testing.T) {
	home := t.TempDir()
	convs := filepath.Join(home, ".openhands", "conversations")
	src := "../testdata/openhands/conversations/cd94562403b9487ebdd4018e3f531dfd"
	conv := filepath.Join(convs, "cd94562403b9487ebdd4018e3f531dfd")
	if err := os.CopyFS(conv, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(conv, "base_state.json")

	if st := statsOf(t, filepath.Join(home, ".openhands")); st.Format != "openhands" || st.Messages.User != 2 || st.Messages.Assistant != 3 ||
		st.Messages.Tool != 2 || st.ToolCalls != 2 || st.ToolResults != 2 || st.EffMessages != 8 {
		t.Errorf("stats of the conversations folder: %+v", st)
	}
	if code, out, errOut := runCLI(t, t.TempDir(), "grep", "exit code 0", convs); code != 0 || !strings.Contains(out, state+":5: tool: ") {
		t.Errorf("grep (exit %d, %s): %s", code, errOut, out)
	}

	t.Setenv("HOME", home)
	code, out, errOut := runCLI(t, t.TempDir(), "search", "--db", filepath.Join(t.TempDir(), "idx"), "tool_output")
	if code != 0 || !strings.Contains(out, state+":3") || !strings.Contains(out, "openhands --resume cd94562403b9487ebdd4018e3f531dfd") {
		t.Errorf("search with no PATH (exit %d, %s): %s", code, errOut, out)
	}

	before, _ := os.ReadFile(filepath.Join(conv, "events", "event-00007-7dfb0aa3-a3d6-4b0b-b977-3a03990f2812.json"))
	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1", state)
	if code != 2 || !strings.Contains(errOut, "is an OpenHands conversation, which ctxc only reads") {
		t.Errorf("compact in place: exit %d: %s", code, errOut)
	}
	entries, _ := os.ReadDir(filepath.Join(conv, "events"))
	after, _ := os.ReadFile(filepath.Join(conv, "events", "event-00007-7dfb0aa3-a3d6-4b0b-b977-3a03990f2812.json"))
	if len(entries) != 9 || string(after) != string(before) {
		t.Errorf("the conversation changed: %d entries", len(entries))
	}
}

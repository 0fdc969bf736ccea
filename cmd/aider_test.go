package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAiderHistoryCommands: Aider's chat history (a public one, testdata/aider) read by the
// commands as one transcript, its Markdown line numbers kept; found in a folder and by search
// with no PATH in the project; never written: compact in place is refused, -o writes a
// ctxc-format file and says so.
func TestAiderHistoryCommands(t *testing.T) {
	md, err := os.ReadFile("../testdata/aider/zen-mcp-server/.aider.chat.history.md")
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	hist := filepath.Join(project, ".aider.chat.history.md")
	if err := os.WriteFile(hist, md, 0o644); err != nil {
		t.Fatal(err)
	}

	if st := statsOf(t, project); st.Format != "aider" || st.Messages.User != 8 || st.Messages.Assistant != 0 ||
		st.Messages.Tool != 12 || st.ToolCalls != 0 || st.EffMessages != 8 {
		t.Errorf("stats of the project folder: %+v", st)
	}
	if code, out, errOut := runCLI(t, t.TempDir(), "grep", "/add \\*\\*", hist); code != 0 || !strings.Contains(out, hist+":17: user: /add **") {
		t.Errorf("grep (exit %d, %s): %s", code, errOut, out)
	}
	if code, out, _ := runCLI(t, t.TempDir(), "load", "-q", hist); code != 0 || strings.Count(out, "\n") != 8 || !strings.HasPrefix(out, `{"role":"user","content":"/add **  \n"}`) {
		t.Errorf("load (exit %d): %s", code, out)
	}

	sub := filepath.Join(project, "src")
	os.Mkdir(sub, 0o755)
	t.Chdir(sub)
	t.Setenv("HOME", t.TempDir())
	code, out, errOut := runCLI(t, t.TempDir(), "search", "--db", filepath.Join(t.TempDir(), "idx"), "token_utils")
	if code != 0 || !strings.Contains(out, hist+":54") || !strings.Contains(out, "aider --restore-chat-history --chat-history-file "+hist) {
		t.Errorf("search with no PATH in the project (exit %d, %s): %s", code, errOut, out)
	}

	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1", hist)
	if code != 2 || !strings.Contains(errOut, "is an Aider chat history, which ctxc only reads") {
		t.Errorf("compact in place: exit %d: %s", code, errOut)
	}
	outFile := filepath.Join(t.TempDir(), "out.jsonl")
	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "200", "--keep-tail", "1", "-o", outFile, hist)
	if code != 0 || !strings.Contains(errOut, "is a ctxc-format file: aider cannot import it") {
		t.Errorf("compact -o: exit %d: %s", code, errOut)
	} else if st := statsOf(t, outFile); st.Format != "ctxc" || st.EffMessages == 0 {
		t.Errorf("stats of the compacted file: %+v", st)
	}
	if after, _ := os.ReadFile(hist); string(after) != string(md) {
		t.Error("the history changed")
	}
}

package continuecli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/continuecli"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestContinueFixtures: the sessions Continue CLI 1.5.47 wrote (cmd's TestAgentContinue*, which
// compare `ctxc load` with what it sends on resume) read as a snapshot, one line a history item.
func TestContinueFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		user, assistant, tool, calls  int
		compactions, effective, lines int
		first                         string // the effective context's first text
	}{
		{"continue-1.5-tool-resumed.json", 3, 4, 1, 1, 0, 8, 8, "Look at the project [use the tool]"},
		{"continue-1.5-own-compaction.json", 1, 3, 0, 0, 1, 4, 5, "<state_snapshot>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("../../../testdata/fixtures", tc.name)
			res, msgs, err := transcript.LoadFile(path, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatContinue || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
				st.Messages.Tool != tc.tool || st.ToolCalls != tc.calls || st.Compactions != tc.compactions ||
				st.EffMessages != tc.effective || st.Lines != tc.lines {
				t.Errorf("stats: %+v", st)
			}
			if len(msgs) == 0 || !strings.HasPrefix(msgs[0].TextContent(), tc.first) {
				t.Fatalf("context starts with %v, want %q", msgs, tc.first)
			}
			if tc.compactions > 0 && !msgs[0].Summary {
				t.Errorf("the context's first message is not the summary: %+v", msgs[0])
			}
		})
	}
}

// TestContinueContext: Continue CLI's rendering of context items and of tool call states
// without output.
func TestContinueContext(t *testing.T) {
	text := `{"sessionId":"s","workspaceDirectory":"/p"}` + "\n" +
		`{"message":{"role":"user","content":"fix it"},"contextItems":[{"name":"a.go","content":"package a"}]}` + "\n" +
		`{"message":{"role":"assistant","content":"","toolCalls":[{"id":"c1","type":"function","function":{"name":"Bash","arguments":"{}"}}]},"contextItems":[],"toolCallStates":[{"toolCallId":"c1","status":"canceled"}]}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, msgs, err := transcript.LoadFile(p, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Format != transcript.FormatContinue || len(msgs) != 3 {
		t.Fatalf("%s, %d messages", res.Stats.Format, len(msgs))
	}
	if got := msgs[0].TextContent(); got != "<context name=\"a.go\">\npackage a\n</context>\n\nfix it" {
		t.Errorf("user text %q", got)
	}
	if b := msgs[1].Blocks; len(b) != 1 || b[0].Kind != transcript.BlockToolCall {
		t.Errorf("assistant blocks %+v", b)
	}
	if b := msgs[2].Blocks; len(b) != 1 || b[0].Text != continuecli.Cancelled || b[0].ID != "c1" {
		t.Errorf("result %+v", b)
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
			path := filepath.Join("../../testdata/fixtures", tc.name)
			res, msgs, err := LoadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != FormatContinue || st.Messages.User != tc.user || st.Messages.Assistant != tc.assistant ||
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

// TestContinueSnapshotWhileWritten: a session file cut short (Continue CLI truncates it and
// writes it again) is read again until it is whole; one that stays cut is an error naming the
// file, not a garbled read.
func TestContinueSnapshotWhileWritten(t *testing.T) {
	whole, err := os.ReadFile("../../testdata/fixtures/continue-1.5-tool-resumed.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(3 * continueSnapshotWait)
		os.WriteFile(path, whole, 0o644)
	}()
	res, _, err := LoadFile(path, Options{})
	if err != nil || res.Stats.EffMessages != 8 {
		t.Fatalf("a file rewritten while read: %v, %+v", err, res)
	}
	if err := os.WriteFile(path, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadFile(path, Options{}); err == nil || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "not a complete JSON document") {
		t.Errorf("a file that stays cut: %v", err)
	}
}

// TestContinueLines: the layout of a document, its header first; a JSONL file or a one-line
// document is not read as one.
func TestContinueLines(t *testing.T) {
	doc := "{\n  \"sessionId\": \"s\",\n  \"title\": \"t\",\n  \"history\": [\n    {\"message\": {\"role\": \"user\", \"content\": \"hi\"}, \"contextItems\": []}\n  ],\n  \"usage\": {\"totalCost\": 0}\n}"
	got, err := ContinueLines([]byte(doc))
	want := `{"sessionId":"s","title":"t","usage":{"totalCost":0}}` + "\n" + `{"message":{"role":"user","content":"hi"},"contextItems":[]}` + "\n"
	if err != nil || string(got) != want {
		t.Errorf("ContinueLines = %q, %v; want %q", got, err, want)
	}
	for _, head := range []string{`{"sessionId":"s"}`, "{\n  \"title\": 1}", `{"role":"user"}`, "\ufeff{\n  \"sessionId\": 1"} {
		if got := continueSniff([]byte(head)); got != strings.HasPrefix(head, "\ufeff") {
			t.Errorf("continueSniff(%q) = %v", head, got)
		}
	}
}

// TestContinueContext: Continue CLI's rendering of context items and of tool call states
// without output.
func TestContinueContext(t *testing.T) {
	text := `{"sessionId":"s","workspaceDirectory":"/p"}` + "\n" +
		`{"message":{"role":"user","content":"fix it"},"contextItems":[{"name":"a.go","content":"package a"}]}` + "\n" +
		`{"message":{"role":"assistant","content":"","toolCalls":[{"id":"c1","type":"function","function":{"name":"Bash","arguments":"{}"}}]},"contextItems":[],"toolCallStates":[{"toolCallId":"c1","status":"canceled"}]}` + "\n"
	res, err := scanLines(strings.NewReader(text), "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := res.Messages(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Format != FormatContinue || len(msgs) != 3 {
		t.Fatalf("%s, %d messages", res.Stats.Format, len(msgs))
	}
	if got := msgs[0].TextContent(); got != "<context name=\"a.go\">\npackage a\n</context>\n\nfix it" {
		t.Errorf("user text %q", got)
	}
	if b := msgs[1].Blocks; len(b) != 1 || b[0].Kind != BlockToolCall {
		t.Errorf("assistant blocks %+v", b)
	}
	if b := msgs[2].Blocks; len(b) != 1 || b[0].Text != continueCancelled || b[0].ID != "c1" {
		t.Errorf("result %+v", b)
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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

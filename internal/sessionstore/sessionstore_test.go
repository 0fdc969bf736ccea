package sessionstore

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertedFiles: each agent's file that ctxc reads through its export is owned by its
// source alone, found by a directory walk, opened as the export StatSession measures, and never
// written (its read-only error names the agent); a JSON lines session is none of them.
func TestConvertedFiles(t *testing.T) {
	root := filepath.Join("..", "..", "testdata")
	for _, tc := range []struct {
		path  string
		agent string // in its read-only error
	}{
		{"aider/zen-mcp-server/.aider.chat.history.md", "Aider"},
		{"openhands/conversations/cd94562403b9487ebdd4018e3f531dfd/base_state.json", "OpenHands"},
		{"cline/sessions/1795898039634_e06ml/1795898039634_e06ml.messages.json", "Cline"},
		{"cline-task/tasks/1795924009252/api_conversation_history.json", "Roo Code"},
		{"nanocoder/sessions/fbf6a75c-3983-467f-be52-be6a3be61394.json", "Nanocoder"},
		{"sweagent/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj", "SWE-agent"},
		{"miniswe/sqlfluff__sqlfluff-2419/sqlfluff__sqlfluff-2419.traj.json", "mini-swe-agent"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			path := filepath.Join(root, tc.path)
			owners := 0
			for _, s := range converted {
				if s.Owns(path) {
					owners++
				}
			}
			if owners != 1 || !IsConverted(path) || IsStoreSession(path) || !IsSessionName(path) {
				t.Fatalf("owned by %d sources, converted %v, a store's %v", owners, IsConverted(path), IsStoreSession(path))
			}
			if !FoundInWalk(path, filepath.Base(path)) {
				t.Error("not found by a directory walk")
			}
			if err := ReadOnly(path); err == nil || !strings.Contains(err.Error(), tc.agent) {
				t.Errorf("read-only error %v: want one naming %s", err, tc.agent)
			}
			info, err := StatSession(path)
			if err != nil {
				t.Fatal(err)
			}
			f, _, err := OpenSession(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			export, err := io.ReadAll(f)
			if err != nil || int64(len(export)) != info.Size() || len(export) == 0 {
				t.Fatalf("export of %d bytes (%v), StatSession says %d", len(export), err, info.Size())
			}
		})
	}
	plain := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(plain, []byte(`{"role":"user","content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if IsSessionName(plain) || FoundInWalk(plain, "s.jsonl") || IsStoreFile(plain) {
		t.Error("a JSON lines session taken for a file read through an export")
	}
}

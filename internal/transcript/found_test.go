package transcript

import (
	"path/filepath"
	"testing"
)

// TestFound: which files a directory walk reads as sessions.
func TestFound(t *testing.T) {
	cases := []struct {
		path     string
		archived bool
		want     bool
	}{
		{"/h/.claude/projects/-w/a.jsonl", false, true},
		{"/h/.claude/projects/-w/a.jsonl.zst", true, true},
		{"/h/.claude/projects/-w/a.jsonl.zst", false, false}, // commands that write skip archives
		{"/h/.claude/projects/-w/notes.json", true, false},
		{"/h/.openclaw/agents/main/agent/openclaw-agent.sqlite", false, true},
		{"/h/.openclaw/agents/main/agent/other.sqlite", true, false},
		{"/h/.gemini/tmp/p/chats/session-1.jsonl", true, true},
		{"/h/.gemini/tmp/p/logs.jsonl", true, false},
		{"/h/.qwen/projects/p/chats/s.jsonl", true, true},
		{"/h/.qwen/usage.jsonl", true, false},
		{"/h/.qwen/projects/p/chats/s.jsonl.zst", true, true},
	}
	for _, c := range cases {
		if got := Found(c.path, filepath.Base(c.path), c.archived); got != c.want {
			t.Errorf("%s (archived %v): %v, want %v", c.path, c.archived, got, c.want)
		}
	}
}

// TestStoreSessionsOfAFile: a file that is not an OpenClaw store stands for itself.
func TestStoreSessionsOfAFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if got, err := StoreSessions(p); err != nil || len(got) != 1 || got[0] != p {
		t.Errorf("%v %v", got, err)
	}
}

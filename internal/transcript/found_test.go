package transcript

import (
	"os"
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

// TestFoundTrajectories: a directory walk reads SWE-agent's <instance>.traj and mini-swe-agent's
// <instance>.traj.json when the agent wrote them, and no other JSON of those names.
func TestFoundTrajectories(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, data string
		want       bool
	}{
		{"i1.traj", "{\n  \"environment\": \"swe_main\",\n  \"trajectory\": []\n}", true},
		{"i2.traj", `{"trajectory":[],"history":[],"info":{}}`, true},
		{"i3.traj", `{"steps":[]}`, false},
		{"i4.traj.json", "{\n  \"info\": {},\n  \"messages\": []\n}", true},
		{"i5.traj.json", `[{"role":"system","content":"s"}]`, false},
		{"i6.json", `{"info":{},"messages":[]}`, false},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := Found(p, c.name, false); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.name, c.data, got, c.want)
		}
	}
}

package agent

import (
	"strings"
	"testing"
)

func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		if n == "" || n == "auto" || seen[n] {
			t.Errorf("format name %q: empty, reserved or twice", n)
		}
		seen[n] = true
	}
}

// A tool name read as two kinds would make what a call does depend on map order.
func TestEveryToolNameHasOneKind(t *testing.T) {
	kinds := map[string]ToolKind{}
	for _, a := range All() {
		for kind, names := range map[ToolKind][]string{EditTool: a.Tools.Edit, ReadTool: a.Tools.Read,
			PatchTool: a.Tools.Patch, ShellTool: a.Tools.Shell} {
			for _, n := range names {
				l := strings.ToLower(n)
				if k, ok := kinds[l]; ok && k != kind {
					t.Errorf("%s: tool %q is kind %d and %d", a.Name, n, k, kind)
				}
				kinds[l] = kind
			}
		}
	}
}

func TestEveryAgentResumes(t *testing.T) {
	for _, a := range All() {
		if a.Generic != (a.Resume == "" && a.ResumeIn == "") {
			t.Errorf("%s: generic %v, resume command %q", a.Name, a.Generic, a.Resume)
		}
	}
}

// TestEveryAgentHasHomes: every agent names where it keeps its sessions, for search's
// defaults; a message list, written by any client, has no such place.
func TestEveryAgentHasHomes(t *testing.T) {
	for _, a := range All() {
		if a.Generic != (len(a.Homes) == 0) {
			t.Errorf("%s: generic %v, homes %v", a.Name, a.Generic, a.Homes)
		}
	}
	if dirs := SessionDirs("/h"); len(dirs) < len(AgentNames()) || dirs[0] != "/h/.claude/projects" {
		t.Errorf("session folders %v", dirs)
	}
}

func TestResumeCommand(t *testing.T) {
	q := func(s string) string { return "'" + s + "'" }
	cases := []struct{ name, session, path, want string }{
		{"claude-code", "s1", "/p.jsonl", "claude --resume 's1'"},
		{"codex", "s1", "/p.jsonl", "codex resume 's1'"},
		{"pi", "s1", "/p.jsonl", "pi --session '/p.jsonl'"},
		{"copilot", "s1", "/e.jsonl", "copilot --resume='s1'"},
		{"droid", "", "/p.jsonl", ""},
		{"openai", "s1", "/p.jsonl", ""},
		{"openhands", "c0ffee", "/h/.openhands/conversations/c0ffee/base_state.json", "openhands --resume 'c0ffee'"},
		{"aider", "", "/r/.aider.chat.history.md", "aider --restore-chat-history --chat-history-file '/r/.aider.chat.history.md'"},
	}
	for _, c := range cases {
		a, ok := Lookup(c.name)
		if !ok {
			t.Fatalf("%s: not registered", c.name)
		}
		if got := a.ResumeCommand(c.session, c.path, q); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestKindOfMatchesWholeNames(t *testing.T) {
	cases := map[string]ToolKind{"Edit": EditTool, "read_file": ReadTool, "apply_patch": PatchTool,
		"Bash": ShellTool, "SlashCommand": OtherTool, "Grep": OtherTool, "bash_history": OtherTool}
	for name, want := range cases {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %d, want %d", name, got, want)
		}
	}
}

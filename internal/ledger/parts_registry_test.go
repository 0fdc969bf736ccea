package ledger

import (
	"slices"
	"testing"
)

// The files a call changes are those of the agents' edit tools as the registry names them, Gemini
// CLI's and droid's included.
func TestChangedFilesOfEveryAgent(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"Edit", `{"file_path":"/w/a.go"}`, "/w/a.go"},
		{"replace", `{"file_path":"/w/b.go","old_string":"x","new_string":"y"}`, "/w/b.go"},
		{"Create", `{"file_path":"/w/c.go","content":"x"}`, "/w/c.go"},
		{"create", `{"path":"/w/d.go","file_text":"x"}`, "/w/d.go"},
		{"run_shell_command", `{"command":"echo x > /w/e.txt"}`, "/w/e.txt"},
		{"Execute", `{"command":"touch /w/f.txt"}`, "/w/f.txt"},
	} {
		if got := ChangedFiles(c.name, c.args); !slices.Contains(got, c.want) {
			t.Errorf("%s %s: %q, want %s among them", c.name, c.args, got, c.want)
		}
	}
	if got := ChangedFiles("Grep", `{"path":"/w/src"}`); len(got) != 0 {
		t.Errorf("Grep: %q, want none", got)
	}
}

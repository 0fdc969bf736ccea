package usage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// FileProject reads the project folder from a session's first lines, through lines longer than
// a read buffer, and does not read on to the end of a long session.
func TestFileProject(t *testing.T) {
	dir := t.TempDir()
	long := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 200000) + `"}}` + "\n"
	withCwd := `{"type":"user","sessionId":"s1","cwd":"/home/me/proj","message":{"role":"user","content":"hi"}}` + "\n"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	early := write("early.jsonl", long+withCwd+strings.Repeat(long, 3))
	if got, err := FileProject(early, transcript.FormatClaude); got != "/home/me/proj" || err != nil {
		t.Errorf("FileProject = %q, %v; want /home/me/proj", got, err)
	}
	late := write("late.jsonl", strings.Repeat(long, describeLines)+withCwd)
	if got, err := FileProject(late, transcript.FormatClaude); got != "" || err != nil {
		t.Errorf("a folder after the first %d lines: FileProject = %q, %v; want none", describeLines, got, err)
	}
}

package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFilesFollowLinks: a folder given to a tool is walked as on the command line: a link to
// the sessions' folder is followed, a file reached twice is read once, and a loop of links is
// in the result's errors.
func TestFilesFollowLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "a.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "real", "real/again.jsonl": "a.jsonl", "real/up": ".."} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	files, _, problems, err := Options{}.files([]string{link, real})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(link, "a.jsonl")}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "up: a symbolic link to a folder it is in") {
		t.Errorf("problems %q, want the loop once", problems)
	}
}

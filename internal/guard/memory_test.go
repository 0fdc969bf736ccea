package guard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/memory"
)

func hookInputIn(path, cwd string) string {
	b, _ := json.Marshal(map[string]string{"session_id": "s1", "transcript_path": path, "cwd": cwd,
		"hook_event_name": "SessionStart", "source": "compact"})
	return string(b)
}

// TestMemoryFlush: with a memory file, the hook merges the session's memory into it before the
// note; a relative file is taken from the session's folder; the note comes either way.
func TestMemoryFlush(t *testing.T) {
	dir := t.TempDir()
	user := "# Project notes\n\nmine\n"
	os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(user), 0o644)
	out, oc := ClaudeCode(context.Background(), strings.NewReader(hookInputIn(example, dir)), Options{Memory: "CLAUDE.md"})
	if oc.Action != "note" || len(out) == 0 {
		t.Fatalf("no note with a memory file: %+v", oc)
	}
	if !strings.HasPrefix(oc.Memory, "memory: "+filepath.Join(dir, "CLAUDE.md")+", ") {
		t.Errorf("outcome memory %q", oc.Memory)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "CLAUDE.md"))
	if !strings.HasPrefix(string(data), user+"\n"+memory.StartMarker) {
		t.Fatalf("CLAUDE.md:\n%s", data)
	}
	es, err := memory.Section(data)
	if err != nil || len(es) == 0 {
		t.Fatalf("section: %v, %d entries", err, len(es))
	}
	_, oc = ClaudeCode(context.Background(), strings.NewReader(hookInputIn(example, dir)), Options{Memory: "CLAUDE.md"})
	if !strings.Contains(oc.Memory, "unchanged") {
		t.Errorf("a second flush of the same session: %q", oc.Memory)
	}
}

// TestMemoryFlushFailureKeepsTheNote: a memory file ctxc cannot update is left as it was, the
// log says why, and the agent still gets its note.
func TestMemoryFlushFailureKeepsTheNote(t *testing.T) {
	dir := t.TempDir()
	broken := "# x\n" + memory.StartMarker + "\n"
	path := filepath.Join(dir, "CLAUDE.md")
	os.WriteFile(path, []byte(broken), 0o644)
	out, oc := ClaudeCode(context.Background(), strings.NewReader(hookInputIn(example, dir)), Options{Memory: path})
	if oc.Action != "note" || len(out) == 0 {
		t.Fatalf("no note: %+v", oc)
	}
	if !strings.Contains(oc.Memory, "not written: "+path+":2:") {
		t.Errorf("outcome memory %q", oc.Memory)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Error("the memory file changed")
	}
	_, oc = ClaudeCode(context.Background(), strings.NewReader(hookInput(example, "SessionStart", "compact")), Options{Memory: "CLAUDE.md"})
	if !strings.Contains(oc.Memory, "no cwd") || oc.Action != "note" {
		t.Errorf("a relative memory file without cwd: %+v", oc)
	}
}

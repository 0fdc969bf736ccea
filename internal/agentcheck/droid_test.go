package agentcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestAgentDroidSession: the real droid, offline on a fake model, writes a session with a tool
// call; ctxc's reader counts it, and the context ctxc loads is the one droid sends when it
// resumes the session (droid exec -s), also after ctxc's compaction_state record.
func TestAgentDroidSession(t *testing.T) {
	bin, ok := MoreAgent("droid")
	if !ok {
		Skip(t, "droid not installed (scripts/install-agents.sh; CTXC_MORE_AGENTS_BIN)")
	}
	h, err := NewDroidHome(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	notes := filepath.Join(h.Proj, "notes.txt")
	os.WriteFile(notes, []byte("hello file\n"), 0o644)
	if err := h.DroidPrompt("", "READ "+notes+" please"); err != nil {
		t.Fatal(err)
	}
	files, err := h.DroidSessions()
	if err != nil || len(files) != 1 {
		t.Fatalf("droid wrote %d session files (%v)", len(files), err)
	}
	file := files[0]
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	snap := snapshot(t, file)
	got := scanCounts(t, snap)
	// The user messages: droid's own context message (its tool list) and the prompt.
	want := counts{format: transcript.FormatDroid, user: 2, assistant: 2, tool: 1, calls: 1, effective: 5}
	if got != want {
		t.Fatalf("counts: got %+v, want %+v", got, want)
	}
	resumeDroid := func() []byte {
		t.Helper()
		h.Fake.Reset()
		if err := h.DroidPrompt(id, Prompt); err != nil {
			t.Fatal(err)
		}
		return h.Fake.Last()
	}
	agreeOnResume(t, Droid, snap, resumeDroid())

	// ctxc's compaction record, appended in place: droid resumes from it.
	if err := h.DroidPrompt(id, "READ "+notes+" again"); err != nil {
		t.Fatal(err)
	}
	appendCompaction(t, file, 3, "ctxc summary: the notes were read twice.")
	snap = snapshot(t, file)
	got = scanCounts(t, snap)
	if got.compactions != 1 || got.effective != 4 {
		t.Fatalf("counts after ctxc's compaction: %+v (want 1 compaction, 4 effective messages)", got)
	}
	req := resumeDroid()
	agreeOnResume(t, Droid, snap, req)
	if !bytes.Contains(req, []byte("ctxc summary: the notes were read twice.")) {
		t.Fatal("droid's request lacks ctxc's summary")
	}
}

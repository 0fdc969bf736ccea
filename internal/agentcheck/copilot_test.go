package agentcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestAgentCopilotSession: the real Copilot CLI, offline on a fake model, writes a session with
// a tool call; ctxc's reader counts it, and the context ctxc loads is the one Copilot sends when
// it resumes the session, also after Copilot's own /compact and after ctxc's compaction record.
func TestAgentCopilotSession(t *testing.T) {
	bin, ok := MoreAgent("copilot")
	if !ok {
		Skip(t, "Copilot CLI not installed (scripts/install-agents.sh; CTXC_MORE_AGENTS_BIN)")
	}
	h, err := NewCopilotHome(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	notes := filepath.Join(h.Proj, "notes.txt")
	os.WriteFile(notes, []byte("hello file\n"), 0o644)
	if err := h.CopilotPrompt("", "READ "+notes+" please"); err != nil {
		t.Fatal(err)
	}
	files, err := h.CopilotSessions()
	if err != nil || len(files) != 1 {
		t.Fatalf("Copilot wrote %d session files (%v)", len(files), err)
	}
	file := files[0]
	id := filepath.Base(filepath.Dir(file))
	snap := snapshot(t, file)
	got := scanCounts(t, snap)
	want := counts{format: transcript.FormatCopilot, user: 1, assistant: 2, tool: 1, calls: 1, effective: 4}
	if got != want {
		t.Fatalf("counts: got %+v, want %+v", got, want)
	}
	resumeCopilot := func() []byte {
		t.Helper()
		h.Fake.Reset()
		if err := h.CopilotPrompt(id, Prompt); err != nil {
			t.Fatal(err)
		}
		return h.Fake.Last()
	}
	agreeOnResume(t, Copilot, snap, resumeCopilot())

	// Copilot's own compaction: a session.compaction_complete it resumes from.
	if err := h.CopilotPrompt(id, "/compact"); err != nil {
		t.Fatal(err)
	}
	snap = snapshot(t, file)
	got = scanCounts(t, snap)
	want = counts{format: transcript.FormatCopilot, user: 3, assistant: 3, tool: 1, calls: 1, compactions: 1, effective: 1}
	if got != want {
		t.Fatalf("counts after /compact: got %+v, want %+v", got, want)
	}
	agreeOnResume(t, Copilot, snap, resumeCopilot())

	// ctxc's compaction record, appended in place: Copilot resumes from it.
	if err := h.CopilotPrompt(id, "READ "+notes+" again"); err != nil {
		t.Fatal(err)
	}
	appendCompaction(t, file, 3, "ctxc summary: the notes were read twice.")
	snap = snapshot(t, file)
	req := resumeCopilot()
	agreeOnResume(t, Copilot, snap, req)
	if !bytes.Contains(req, []byte("ctxc summary: the notes were read twice.")) || !strings.Contains(string(req), "call_fake_") {
		t.Fatal("Copilot's request lacks ctxc's summary or the kept tool call")
	}
}

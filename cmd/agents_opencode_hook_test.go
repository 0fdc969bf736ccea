package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/guard"
	"github.com/ctxc/ctxc/internal/hooks"
	"github.com/tidwall/gjson"
)

// The real opencode (and Kilo's CLI, its descendant) with ctxc's plugin (`ctxc hooks install opencode`) driven into its own
// compaction offline (opencodeSession: a reported usage over the fake model's window): its
// compaction request carries ctxc's ledger of the session, and the requests after it carry ctxc's
// note of what the summary lost, stored in the session so that a resume sends it again. With a
// ctxc that is gone, opencode compacts as always.

// installOpencodePlugin runs `ctxc hooks install AGENT` (bin; AGENT opencode or kilo) with the
// judge's home as HOME and XDG_CONFIG_HOME as the agent sees them, and returns the plugin's path.
func installOpencodePlugin(t *testing.T, h *agentcheck.AgentHome, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "hooks", "install", h.Agent)
	cmd.Env = append(os.Environ(), "HOME="+h.Home, "XDG_CONFIG_HOME="+filepath.Join(h.Home, ".config"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctxc hooks install opencode: %v: %s", err, out)
	}
	path := filepath.Join(h.Home, ".config", h.Agent, "plugin", hooks.OpencodeFile)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// opencodeCompactionRequests splits the requests opencode sent into its compaction request and
// the turns after it.
func opencodeCompactionRequests(t *testing.T, h *agentcheck.AgentHome) (compaction string, after []string) {
	t.Helper()
	found := false
	for _, r := range h.Fake.Requests("/chat/completions") {
		body := string(r.Body)
		switch {
		case strings.Contains(body, agentcheck.OpencodeSummaryCue):
			if found {
				t.Fatalf("%s compacted twice", h.Agent)
			}
			compaction, found = body, true
		case found && strings.Contains(body, `"tools"`):
			after = append(after, body)
		}
	}
	if !found {
		t.Fatalf("%s sent no compaction request", h.Agent)
	}
	return compaction, after
}

func TestAgentOpencodePlugin(t *testing.T) {
	bin := builtCtxc(t)
	notes := func(h *agentcheck.AgentHome) string { return filepath.Join(h.Proj, "notes.txt") }
	t.Run("ledger to the summarizer, lost facts after the summary", func(t *testing.T) {
		h := opencodeHome(t)
		installOpencodePlugin(t, h, bin)
		id := opencodeSession(t, h)
		compaction, after := opencodeCompactionRequests(t, h)
		// The ledger in the compaction request: after ctxc's frame, the file the tool read and
		// the requests of the session.
		_, ledger, ok := strings.Cut(strings.Join(requestTexts(compaction), "\n"), "ctxc (a tool the user installed) copied these facts")
		for _, want := range []string{"### Files read", notes(h), "Second question", "Look at the project [use the tool]"} {
			if !ok || !strings.Contains(ledger, want) {
				t.Errorf("ctxc's ledger in opencode's compaction request lacks %q:\n%.3000s", want, ledger)
			}
		}
		if len(after) == 0 {
			t.Fatal("opencode sent no turn after its compaction")
		}
		// The note after the summary: the first request, which opencode's summary (the fake's
		// SnapshotReply) and its kept tail lack, once in each request after the compaction and
		// in the resumed turn.
		resumed, err := h.OpencodeResumeRequest(id)
		if err != nil {
			t.Fatal(err)
		}
		for i, body := range append(after, string(resumed)) {
			notes := ctxcNotes(body)
			if len(notes) != 1 || !strings.Contains(notes[0], "Look at the project [use the tool]") {
				t.Errorf("request %d after the compaction (of %d, the last one resumed): %d notes of ctxc: %q", i+1, len(after)+1, len(notes), notes)
			}
		}
	})
	t.Run("no ctxc binary: opencode compacts on its own", func(t *testing.T) {
		h := opencodeHome(t)
		gone := filepath.Join(t.TempDir(), "ctxc")
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(gone, data, 0o755)
		installOpencodePlugin(t, h, gone)
		os.Remove(gone)
		id := opencodeSession(t, h)
		compaction, after := opencodeCompactionRequests(t, h)
		if strings.Contains(compaction, "ctxc (a tool the user installed)") || len(after) == 0 || len(ctxcNotes(after[0])) != 0 {
			t.Errorf("compaction with no ctxc: %d turns after it; request:\n%.2000s", len(after), compaction)
		}
		store, err := h.OpencodeSnapshot(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if c := countOpencodeRows(t, store, id); c.compactions != 1 {
			t.Errorf("opencode's store: %+v, want one compaction", c)
		}
	})
}

// requestTexts are the texts of a Chat Completions request's messages.
func requestTexts(body string) []string {
	var out []string
	for _, m := range gjson.Get(body, "messages").Array() {
		c := m.Get("content")
		if c.Type == gjson.String {
			out = append(out, c.Str)
		}
		for _, p := range c.Array() {
			out = append(out, p.Get("text").Str)
		}
	}
	return out
}

// ctxcNotes are the texts of a request that are ctxc's notes.
func ctxcNotes(body string) []string {
	var out []string
	for _, text := range requestTexts(body) {
		if strings.HasPrefix(text, guard.NotePrefix) {
			out = append(out, text)
		}
	}
	return out
}

// TestAgentKiloPlugin: Kilo loads the same plugin from its own folder (ctxc hooks install kilo)
// and calls the same hooks: ctxc's ledger is in its compaction request. Kilo compacts before the
// turn after the one that overflowed.
func TestAgentKiloPlugin(t *testing.T) {
	bin := builtCtxc(t)
	h := kiloHome(t)
	installOpencodePlugin(t, h, bin)
	if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	names, err := opencodestore.Kilo.ListSessions(h.KiloStore())
	if err != nil || len(names) != 1 {
		t.Fatalf("kilo's store holds %v (%v), want one session", names, err)
	}
	_, id, _ := strings.Cut(names[0], opencodestore.Sep)
	h.Fake.SetInputTokens(5 * agentcheck.OpencodeContext)
	if err := h.OpencodeRun(id, "Second question"); err != nil {
		t.Fatal(err)
	}
	if err := h.OpencodeRun(id, "Third question"); err != nil {
		t.Fatal(err)
	}
	compaction, after := opencodeCompactionRequests(t, h)
	_, ledger, ok := strings.Cut(strings.Join(requestTexts(compaction), "\n"), "ctxc (a tool the user installed) copied these facts")
	for _, want := range []string{"### Files read", filepath.Join(h.Proj, "notes.txt"), "Second question"} {
		if !ok || !strings.Contains(ledger, want) {
			t.Errorf("ctxc's ledger in kilo's compaction request lacks %q:\n%.3000s", want, ledger)
		}
	}
	// Kilo replays the third question after the summary and answers it once: the plugin's note
	// waits for the session to be idle, so Kilo takes no note for a request of its own. (`kilo
	// run` exits as soon as the session is idle, before the note is stored.)
	if len(after) != 1 || len(ctxcNotes(after[0])) != 0 {
		t.Errorf("kilo sent %d turns after its compaction (want the replayed question's alone, without a note)", len(after))
	}
}

package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
	"github.com/ctxc/ctxc/internal/agentcheck"
)

// The session document compact -o OUT.json writes of an opencode session, judged by opencode:
// `opencode import OUT.json` takes it in as a new session, and opencode resumes that session
// with ctxc's compaction, sending what ctxc load reads of it in opencode's store.
func TestAgentOpencodeImportCompacted(t *testing.T) {
	h := opencodeHome(t)
	id := opencodeLongSession(t, h)
	store := h.OpencodeStore()
	name := store + opencodestore.Sep + id
	_, before, _ := runCLI(t, t.TempDir(), "load", "-q", name)
	_, st, _ := runCLI(t, t.TempDir(), "stats", name)
	t.Logf("%s", st)

	out := filepath.Join(t.TempDir(), "compacted.json")
	code, _, errOut := runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "3000",
		"--keep-head", "0", "--keep-tail", "2", "-o", out, name)
	if code != 0 {
		t.Fatalf("ctxc compact -o %s: exit %d: %s", out, code, errOut)
	}
	t.Logf("compact: %s", errOut)
	m := regexp.MustCompile(`new opencode session (ses_[0-9A-Za-z]+): opencode import `).FindStringSubmatch(errOut)
	if m == nil || strings.Contains(errOut, "cannot import") {
		t.Fatalf("compact does not name the new session to import:\n%s", errOut)
	}
	newID := m[1]
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if printed, err := h.OpencodeImport(out); err != nil || !strings.Contains(printed, "Imported session: "+newID) {
		t.Fatalf("opencode import %s: %v\n%s", out, err, printed)
	}
	imported := store + opencodestore.Sep + newID
	want := loadAs(t, h.Agent, imported)
	summary := gjson.GetBytes(doc, `messages.#(info.summary==true).parts.#(type=="text").text`).Str

	body, err := h.OpencodeResumeRequest(newID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := agentcheck.FromRequest(h.Agent, body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := agentcheck.Compare(h.Agent, want, got); diff != "" {
		t.Errorf("ctxc load of the imported session disagrees with opencode (%d agent turns, %d ctxc turns):\n%s", len(got), len(want), diff)
	}
	if len(got) < 3 || !strings.Contains(string(body), "What did we do so far?") {
		t.Errorf("opencode did not resume from the compaction (%d turns):\n%s", len(got), body)
	}
	if summary == "" || !requestHolds(body, summary) {
		t.Errorf("opencode's request does not hold ctxc's summary %q", summary)
	}
	if _, after, _ := runCLI(t, t.TempDir(), "load", "-q", name); after != before {
		t.Errorf("the original session changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	t.Logf("document %d bytes; opencode sent %d turns", len(doc), len(got))
}

// opencodeLongSession has opencode write a session of three turns, a tool call in the first, the
// second prompt padded so that the session is worth compacting; it returns the session's id.
func opencodeLongSession(t *testing.T, h *agentcheck.AgentHome) string {
	t.Helper()
	if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	names, err := opencodestore.ListSessions(h.OpencodeStore())
	if err != nil || len(names) != 1 {
		t.Fatalf("opencode's store holds %v (%v), want 1 session", names, err)
	}
	_, id, _ := strings.Cut(names[0], opencodestore.Sep)
	pad := " Notes for this step: " + strings.Repeat("the build must stay green; ", 1000)
	for _, prompt := range []string{"Second question" + pad, "Third question"} {
		if err := h.OpencodeRun(id, prompt); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// requestHolds reports whether a message of a Chat Completions request has text as its content
// (or as one of its text parts).
func requestHolds(body []byte, text string) bool {
	for _, m := range gjson.GetBytes(body, "messages").Array() {
		c := m.Get("content")
		if c.Type == gjson.String && c.Str == text {
			return true
		}
		for _, p := range c.Array() {
			if p.Get("text").Str == text {
				return true
			}
		}
	}
	return false
}

package cmd

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/guard"
	"github.com/ctxc/ctxc/internal/hooks"
	"github.com/ctxc/ctxc/internal/opencodestore"
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
	t.Run("a compaction asked for (/compact): the note after it", func(t *testing.T) {
		h := opencodeHome(t)
		installOpencodePlugin(t, h, bin)
		if err := h.OpencodeRun("", "Look at the project "+agentcheck.ToolWord); err != nil {
			t.Fatal(err)
		}
		names, err := opencodestore.ListSessions(h.OpencodeStore())
		if err != nil || len(names) != 1 {
			t.Fatalf("opencode's store holds %v (%v), want one session", names, err)
		}
		_, id, _ := strings.Cut(names[0], opencodestore.Sep)
		url, stop, err := h.OpencodeServe()
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		// What the TUI's /compact asks of opencode's server, in the session's folder.
		session := url + "/session/" + id
		query := "?directory=" + neturl.QueryEscape(opencodeSessionDir(t, h.OpencodeStore(), id))
		postJSON(t, session+"/summarize"+query, `{"providerID":"fake","modelID":"fake-model"}`)
		waitForNote(t, session+"/message"+query)
		postJSON(t, session+"/message"+query, `{"parts":[{"type":"text","text":"Third question"}]}`)
		compaction, after := opencodeCompactionRequests(t, h)
		if !strings.Contains(compaction, "ctxc (a tool the user installed) copied these facts") {
			t.Errorf("opencode's compaction request lacks ctxc's ledger:\n%.3000s", compaction)
		}
		if len(after) == 0 {
			t.Fatal("opencode sent no turn after its compaction")
		}
		last := after[len(after)-1]
		if notes := ctxcNotes(last); len(notes) != 1 || !strings.Contains(notes[0], "Look at the project [use the tool]") {
			t.Errorf("the turn after the compaction: %d notes of ctxc: %q", len(notes), notes)
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
// and calls the same hooks. Kilo compacts before the turn after the one that overflowed.
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
	// Kilo replays the third question after the summary and answers it once, without the note,
	// which it stores once the session is idle: the resumed turn holds it once.
	if len(after) != 1 || len(ctxcNotes(after[0])) != 0 {
		t.Errorf("kilo sent %d turns after its compaction (want the replayed question's alone, without the note)", len(after))
	}
	body, err := h.KiloResumeRequest(id)
	if err != nil {
		t.Fatal(err)
	}
	if notes := ctxcNotes(string(body)); len(notes) != 1 || !strings.Contains(notes[0], "Look at the project [use the tool]") {
		t.Errorf("kilo's resumed turn: %d notes of ctxc: %q", len(notes), notes)
	}
}

// opencodeSessionDir is the folder opencode's store records for session id.
func opencodeSessionDir(t *testing.T, store, id string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+store+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var dir string
	if err := db.QueryRow(`SELECT directory FROM session WHERE id = ?`, id).Scan(&dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// judgeClient gives up on an agent's server after three minutes.
var judgeClient = &http.Client{Timeout: 3 * time.Minute}

// postJSON posts body to url and fails the test unless the answer is 200.
func postJSON(t *testing.T, url, body string) {
	t.Helper()
	resp, err := judgeClient.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, answer)
	}
}

// waitForNote waits (a minute at most) until the session's messages (GET url) hold ctxc's note:
// the plugin adds it once ctxc answers, after the compaction.
func waitForNote(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		resp, err := judgeClient.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if gjson.ValidBytes(body) && strings.Contains(string(body), jsonString(guard.NotePrefix)) {
			return
		}
	}
	t.Fatal("no note of ctxc in the session a minute after its compaction")
}

// jsonString is s as it is written inside a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

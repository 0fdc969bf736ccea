package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/hooks"
)

// The Cline CLI as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): offline against
// agentcheck's fake Chat Completions endpoint, it writes real sessions
// (~/.cline/data/sessions/<id>/: a tool call reading a file long enough for Cline to cut its
// result; a session it compacts itself) and resumes them
// through its Agent Client Protocol mode (`cline --acp`: session/load, session/prompt); each
// request is the context it rebuilt, compared with `ctxc load` of the session as it was before.

// clineHome prepares a home for Cline, skipping when it is not installed.
func clineHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "cline", "cline not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewClineHome)
}

// clineSession is the one session Cline wrote in h.
func clineSession(t *testing.T, h *agentcheck.AgentHome) (id, path string) {
	t.Helper()
	ids := h.ClineSessions()
	if len(ids) != 1 {
		t.Fatalf("Cline wrote %d sessions, want 1: %v", len(ids), ids)
	}
	return ids[0], h.ClineMessages(ids[0])
}

// clineAgrees resumes session id and checks that its request is the context `ctxc load` read
// of it just before.
func clineAgrees(t *testing.T, h *agentcheck.AgentHome, id, path string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, path, func() ([]byte, error) { return h.ClineResume(id) })
}

func TestAgentClineSession(t *testing.T) {
	h := clineHome(t)
	// notes long enough for Cline to cut the result of its read in the middle before it sends it
	var notes strings.Builder
	for i := range 400 {
		fmt.Fprintf(&notes, "line %d of the notes: the build must stay green\n", i)
	}
	if err := os.WriteFile(filepath.Join(h.Proj, "notes.txt"), []byte(notes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.ClineRun("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	clineAgrees(t, h, id, path)
	clineAgrees(t, h, id, path) // (the resumed turn, stored by Cline, resumed in turn)
	st := statsOf(t, path)
	t.Logf("%+v", st)
	// Two prompts and the first one's tool call; the call, "Done." and two "OK".
	if st.Format != "cline" || st.Messages.User != 3 || st.Messages.Assistant != 4 || st.ToolCalls != 1 ||
		st.ToolResults != 1 || st.Messages.Tool != 1 || st.EffMessages != 8 || st.Usage == nil || st.Usage.Responses != 4 {
		t.Errorf("stats of the session Cline wrote: %+v", st)
	}
	// A directory walk of its home finds the session, and not its manifest.
	if st := statsOf(t, filepath.Join(h.Home, ".cline")); st.Format != "cline" || st.EffMessages != 8 {
		t.Errorf("stats of ~/.cline: %+v", st)
	}
	keepClineSession(t, path, "cline-")
}

// TestAgentClineOwnCompaction: Cline compacts the session itself (--compaction basic, a request
// over its budget once the fake reports a large usage), keeping every message in
// <id>.messages.json and the compacted ones in <id>.compaction.json; ctxc counts the compaction,
// loads the compacted messages then the later ones, and Cline sends that on resume.
func TestAgentClineOwnCompaction(t *testing.T) {
	h := clineHome(t)
	h.Fake.SetInputTokens(1_000_000)
	if err := h.ClineRun("Look at the project "+agentcheck.ToolWord+" "+agentcheck.ClinePad, "--compaction", "basic"); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	if _, err := os.Stat(clinesess.CompactionPath(path)); err != nil {
		t.Fatalf("Cline did not compact: %v", err)
	}
	st := statsOf(t, path)
	t.Logf("%+v", st)
	if st.Format != "cline" || st.Compactions != 1 || st.ToolCalls != 1 || st.EffMessages >= st.Messages.User+st.Messages.Assistant+st.Messages.Tool {
		t.Errorf("stats of the session Cline compacted: %+v", st)
	}
	got := clineAgrees(t, h, id, path)
	for _, turn := range got {
		if strings.Contains(turn.String(), "call:") {
			t.Errorf("Cline resumed the call its compaction left out: %v", got)
		}
	}
	keepClineSession(t, path, "cline-compacted-")
}

// TestAgentClineCompaction: ctxc compacts a session Cline wrote into a new session (-o
// SESSIONS/<new-id>/<new-id>.messages.json: its manifest, every message, and a compaction state of
// ctxc's summary and kept tail keyed by the last message); Cline resumes it through session/load
// and sends ctxc's summary and tail, fewer turns than before, what `ctxc load` reads of it. The
// source's folder is never written: -o onto it, or onto a session folder that exists, is refused
// with nothing changed.
func TestAgentClineCompaction(t *testing.T) {
	h := clineHome(t)
	// notes that make the middle of the session (the result of their read) worth compacting
	var notes strings.Builder
	for i := range 400 {
		fmt.Fprintf(&notes, "line %d of the notes: the build must stay green\n", i)
	}
	if err := os.WriteFile(filepath.Join(h.Proj, "notes.txt"), []byte(notes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.ClineRun("Look at the project " + agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	id, path := clineSession(t, h)
	clineAgrees(t, h, id, path)
	full := clineAgrees(t, h, id, path)
	srcDir := filepath.Dir(path)
	before := folderBytes(t, srcDir)

	const newID = "1795900000000_ctxc1"
	out := filepath.Join(filepath.Dir(srcDir), newID, newID+clinesess.MessagesSuffix)
	cwd := t.TempDir()
	threshold := compactThreshold(t, cwd, path)
	compact := func(o string) (int, string) {
		code, sout, errOut := runCLI(t, cwd, "compact", "--provider", "extractive", "--threshold", fmt.Sprint(threshold),
			"--target", "300", "--keep-tail", "4", "--tiers", "80,0,0", "-o", o, path)
		t.Logf("compact -o %s: exit %d: %s%s", o, code, sout, errOut)
		return code, errOut
	}
	if code, errOut := compact(out); code != 0 {
		t.Fatalf("compact -o %s: exit %d: %s", out, code, errOut)
	}
	if diff := folderDiff(before, folderBytes(t, srcDir)); diff != "" {
		t.Errorf("compact -o changed the source's folder: %s", diff)
	}
	if st := statsOf(t, out); st.Compactions != 1 || st.Format != "cline" {
		t.Errorf("stats of the new session: %+v", st)
	}
	got := clineAgrees(t, h, newID, out)
	if summaryTurn(got) < 0 {
		t.Errorf("Cline does not send ctxc's summary: %v", got)
	}
	if len(got) >= len(full) {
		t.Errorf("Cline resumes %d turns after compaction, %d before", len(got), len(full))
	}
	t.Logf("Cline resumes %d turns of the new session, %d of its source", len(got), len(full))
	clineAgrees(t, h, newID, out) // (the resumed turn, stored after the compaction, resumed in turn)

	// -o onto the source, and onto the session folder just written: refused, nothing changed.
	before = folderBytes(t, srcDir)
	written := folderBytes(t, filepath.Dir(out))
	for _, o := range []string{path, out} {
		code, errOut := compact(o)
		if code == 0 || !strings.Contains(errOut, "never into one") {
			t.Errorf("compact -o %s: exit %d: %s", o, code, errOut)
		}
	}
	if diff := folderDiff(before, folderBytes(t, srcDir)); diff != "" {
		t.Errorf("the source's folder changed: %s", diff)
	}
	if diff := folderDiff(written, folderBytes(t, filepath.Dir(out))); diff != "" {
		t.Errorf("the new session's folder changed: %s", diff)
	}
	keepClineSession(t, out, "cline-ctxc-compacted-")
}

// folderBytes is each file of a folder and its bytes.
func folderBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// folderDiff names the files added, removed or changed between two states of a folder.
func folderDiff(a, b map[string]string) string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	return strings.Join(d, ", ")
}

// keepClineSession copies a session's export, which the fixtures are.
func keepClineSession(t *testing.T, path, prefix string) {
	dir := os.Getenv("CTXC_KEEP_AGENT_SESSIONS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, prefix+strings.TrimSuffix(filepath.Base(path), clinesess.MessagesSuffix)+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := clinesess.Export(path, f); err != nil {
		t.Fatal(err)
	}
}

// clineUserHook is a PostToolUse hook of the user's own beside ctxc's, answering after each
// tool call.
const clineUserHook = "#!/bin/sh\ncat >/dev/null\necho '{\"contextModification\":\"lint: ok\"}'\n"

// clineHookSession has Cline compact a session after it lost a URL, then call a tool: a first
// prompt asking for the tool, then ClinePad, then the URL; after the tool's call, the user's own
// PostToolUse hook answers, and with the large usage the fake reports Cline compacts the session
// (--compaction basic) before its next request, cutting the end of the prompt (it keeps the
// first 32,000 characters or so of a user message before the last one). A second prompt, through
// ACP (where Cline does not compact), asks for the tool again, after whose call Cline runs its
// PostToolUse hooks. It returns the session and the index of the first request after the
// compaction.
func clineHookSession(t *testing.T, h *agentcheck.AgentHome, url string) (id, path string, after int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(h.Home, ".cline", "hooks", "PostToolUse.sh"), []byte(clineUserHook), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Fake.SetInputTokens(1_000_000)
	if err := h.ClineRun("Look at the project "+agentcheck.ToolWord+" "+agentcheck.ClinePad+" Then deploy to "+url+".", "--compaction", "basic"); err != nil {
		t.Fatal(err)
	}
	id, path = clineSession(t, h)
	if _, err := os.Stat(clinesess.CompactionPath(path)); err != nil {
		t.Fatalf("Cline did not compact: %v", err)
	}
	after = len(h.Fake.Requests("/chat/completions")) - 1
	if err := h.ClinePrompt(id, "Look at it again "+agentcheck.ToolWord); err != nil {
		t.Fatal(err)
	}
	return id, path, after
}

// installClineHook installs ctxc's hook file in the judge's ~/.cline/hooks with the ctxc binary
// bin (`ctxc hooks install cline`, as a user would).
func installClineHook(t *testing.T, bin string, h *agentcheck.AgentHome) string {
	t.Helper()
	dir := filepath.Join(h.Home, ".cline", "hooks")
	cmd := exec.Command(bin, "hooks", "install", "cline", "--dir", dir)
	cmd.Env = append(os.Environ(), "HOME="+h.Home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ctxc hooks install cline: %v: %s", err, out)
	}
	path := filepath.Join(dir, hooks.ClineFile)
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), bin+" hook cline") {
		t.Fatalf("the hook file: %v\n%s", err, data)
	}
	return path
}

// requestsWith are the indexes of the requests Cline sent that contain s.
func requestsWith(reqs []agentcheck.Request, s string) []int {
	var out []int
	for i, r := range reqs {
		if strings.Contains(string(r.Body), s) {
			out = append(out, i)
		}
	}
	return out
}

// TestAgentClineHook: ctxc's hook file, installed by `ctxc hooks install cline` in the judge's
// ~/.cline/hooks (clineHookSession). Cline's compaction cuts a URL of the first prompt; at the
// first tool call after it, Cline runs the hook, which answers, this once, with ctxc's note of
// what the compaction lost: Cline sends it, the URL in it, with its next request, and again when
// the session is resumed (it stores it in the session), which `ctxc load` reads as Cline sends it.
func TestAgentClineHook(t *testing.T) {
	bin := builtCtxc(t)
	h := clineHome(t)
	installClineHook(t, bin, h)
	const url = "https://ci.example.com/builds/ctxc-judge-7731"
	id, path, after := clineHookSession(t, h, url)
	reqs := h.Fake.Requests("/chat/completions")
	withURL, withNote := requestsWith(reqs, url), requestsWith(reqs, audit.NotePrefix)
	t.Logf("%d requests, the compaction before request %d; the URL in %v, ctxc's note in %v", len(reqs), after, withURL, withNote)
	if len(withNote) == 0 || withNote[0] <= after {
		t.Fatalf("ctxc's note is in requests %v: want one after the first tool call after the compaction (request %d)", withNote, after)
	}
	for _, i := range withURL {
		if i >= after && i < withNote[0] {
			t.Errorf("request %d, after the compaction, holds the URL before ctxc's note: the compaction did not lose it", i)
		}
	}
	for _, i := range withNote {
		body := string(reqs[i].Body)
		if !strings.Contains(body, url) || strings.Count(body, audit.NotePrefix) != 1 || !strings.Contains(body, `<hook_context source=\"PostToolUse\"`) {
			t.Errorf("request %d: want the URL and ctxc's note once, in Cline's PostToolUse context", i)
		}
	}
	got := clineAgrees(t, h, id, path)
	if !strings.Contains(fmt.Sprint(got), url) {
		t.Errorf("Cline does not send the note again on resume: %v", got)
	}
	log, _ := os.ReadFile(filepath.Join(h.Home, ".local", "state", "ctxc", "hooks.log"))
	if strings.Count(string(log), " note facts=") != 1 {
		t.Errorf("hooks.log:\n%s", log)
	}
	t.Logf("hooks.log:\n%s", log)
	keepClineSession(t, path, "cline-hooked-")
}

// TestAgentClineHookBroken: ctxc's hook file left in place by a ctxc that is gone: Cline runs
// it after each tool call, gets nothing from it, and compacts, answers and resumes as without it.
func TestAgentClineHookBroken(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "ctxc")
	data, err := os.ReadFile(builtCtxc(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	h := clineHome(t)
	installClineHook(t, gone, h)
	os.Remove(gone)
	const url = "https://ci.example.com/builds/ctxc-judge-7732"
	id, path, after := clineHookSession(t, h, url)
	reqs := h.Fake.Requests("/chat/completions")
	if got := requestsWith(reqs, url); len(got) == 0 || got[len(got)-1] >= after || len(reqs) < after+3 {
		t.Errorf("%d requests, the compaction before request %d, the URL in %v", len(reqs), after, got)
	}
	if got := requestsWith(reqs, audit.NotePrefix); len(got) != 0 {
		t.Errorf("ctxc's note in requests %v", got)
	}
	if got := requestsWith(reqs, "lint: ok"); len(got) < 2 {
		t.Errorf("the user's own hook answered in requests %v", got)
	}
	clineAgrees(t, h, id, path)
}

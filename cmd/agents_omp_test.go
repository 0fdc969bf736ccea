package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// Oh My Pi as a judge (scripts/agent-packages.txt; CTXC_MORE_AGENTS_BIN): offline against
// agentcheck's fake Chat Completions endpoint (its provider "fake" in models.yml), omp writes a
// real session (~/.omp/agent/sessions/<cwd>/<time>_<id>.jsonl: a read call, then resumed turns)
// and resumes it (`omp --resume FILE -p`); its request is compared with `ctxc load` of the
// session as it was before: as omp wrote it, after ctxc's compaction in place and into a new
// session (-o), and after omp's own compaction.

// ompHome prepares a home for omp, skipping when it is not installed.
func ompHome(t *testing.T) *agentcheck.AgentHome {
	t.Helper()
	return moreAgentHome(t, "omp", "omp not installed (eval \"$(scripts/install-agents.sh)\")", agentcheck.NewOmpHome)
}

// ompCounts is what an omp session holds: its user messages, assistant messages, tool calls and
// results, and compaction entries.
type ompCounts struct{ users, assistants, calls, results, compactions int }

func countOmp(t *testing.T, path string) ompCounts {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c ompCounts
	for _, l := range bytes.Split(data, []byte("\n")) {
		e := gjson.ParseBytes(l)
		switch e.Get("type").Str {
		case "compaction":
			c.compactions++
		case "message":
			switch e.Get("message.role").Str {
			case "user":
				c.users++
			case "assistant":
				c.assistants++
				c.calls += int(e.Get(`message.content.#(type=="toolCall")#`).Get("#").Int())
			case "toolResult":
				c.results++
			}
		}
	}
	return c
}

// ompSession has omp write a session: a prompt answered with a read call, then two turns resumed
// by its file; pad is added to each prompt. It returns the session file.
func ompSession(t *testing.T, h *agentcheck.AgentHome, pad string) string {
	t.Helper()
	if err := h.OmpNew("Look at the project " + agentcheck.ToolWord + pad); err != nil {
		t.Fatal(err)
	}
	files := h.OmpSessions()
	if len(files) != 1 {
		t.Fatalf("omp wrote %v, want one session", files)
	}
	for _, p := range []string{"Second question", "Third question"} {
		if err := h.OmpPrompt(files[0], p+pad); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.OmpSessions(); len(got) != 1 {
		t.Fatalf("omp wrote %v on resume, want its one session", got)
	}
	return files[0]
}

// ompAgrees resumes the session in path and checks that omp's request is the context `ctxc
// load` read of it just before; it returns that context.
func ompAgrees(t *testing.T, h *agentcheck.AgentHome, path string) []agentcheck.Turn {
	t.Helper()
	return resumeAgrees(t, h, path, func() ([]byte, error) { return h.OmpResume(path) })
}

// checkOmpStats: ctxc stats counts what the session holds (a compaction's summary as a user
// message, as omp sends it).
func checkOmpStats(t *testing.T, path string) ompCounts {
	t.Helper()
	st := statsOf(t, path)
	c := countOmp(t, path)
	t.Logf("%+v; the session: %+v", st, c)
	if st.Format != "omp" || st.Messages.User != c.users+c.compactions || st.Messages.Assistant != c.assistants || st.ToolCalls != c.calls ||
		st.ToolResults != c.results || st.Messages.Tool != c.results || st.Compactions != c.compactions {
		t.Errorf("stats of %s: %+v; it holds %+v", path, st, c)
	}
	return c
}

// TestAgentOmpSession: omp's session is counted and loaded as omp resumes it; ctxc compacts it
// in place (pi's compaction entry, which omp keeps) and into a new session (-o), and omp resumes
// ctxc's summary and the tail, fewer turns than before, as `ctxc load` reads them.
func TestAgentOmpSession(t *testing.T) {
	h := ompHome(t)
	pad := "\n\nNotes for this step: " + strings.Repeat("the build must stay green; ", 60)
	path := ompSession(t, h, pad)
	if c := checkOmpStats(t, path); c.users != 3 || c.calls != 1 || c.results != 1 || c.compactions != 0 {
		t.Errorf("omp's session holds %+v, want 3 prompts, one call and its result", c)
	}
	full := ompAgrees(t, h, path)
	if len(full) < 5 {
		t.Errorf("omp resumed %d turns, want the prompts, the call, its result and the answers", len(full))
	}
	for _, mode := range []string{"in-place", "new-session"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var extra []string
			if mode == "new-session" {
				extra = []string{"-o", filepath.Join(dir, "new.jsonl")}
			}
			before, _ := os.ReadFile(path)
			cp, res, ok := compactCopy(t, dir, path, extra...)
			if !ok {
				t.Fatalf("not compacted: %v", res)
			}
			target := cp
			if mode == "new-session" {
				target = filepath.Join(dir, "new.jsonl")
			} else if got, _ := os.ReadFile(cp); !bytes.HasPrefix(got, before) {
				t.Error("the bytes before the append changed")
			}
			if c := checkOmpStats(t, target); c.compactions != 1 {
				t.Errorf("after ctxc's compaction the session holds %+v, want one compaction", c)
			}
			got := ompAgrees(t, h, target)
			if summaryTurn(got) < 0 {
				t.Errorf("omp does not send ctxc's summary: %v", got)
			}
			if len(got) >= len(full) {
				t.Errorf("omp resumes %d turns after compaction, %d before", len(got), len(full))
			}
		})
	}
}

// TestAgentOmpOwnCompaction: omp, told by the fake that its context is nearly full (a 30,000-token
// window, 29,500 tokens of usage), compacts after its turn on its own (a handoff document);
// ctxc counts that compaction and loads what omp resumes, its handoff first.
func TestAgentOmpOwnCompaction(t *testing.T) {
	h := ompHome(t)
	if err := h.SetOmpWindow(30_000); err != nil {
		t.Fatal(err)
	}
	h.Fake.SetInputTokens(29_500)
	path := ompSession(t, h, "")
	if c := checkOmpStats(t, path); c.compactions < 1 {
		t.Fatalf("omp did not compact (or ctxc did not see it): %+v", c)
	}
	if err := h.SetOmpWindow(4_000_000); err != nil { // resumed without compacting again
		t.Fatal(err)
	}
	got := ompAgrees(t, h, path)
	if !strings.Contains(got[0].String(), "<handoff>") {
		t.Errorf("omp resumed %v, want its handoff first", got)
	}
}

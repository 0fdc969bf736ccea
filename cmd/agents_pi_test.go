package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The real pi with ctxc's extension (`ctxc hooks install pi`) driven into its own compaction
// (a 30,000-token window, a fake model that reports 29,500 tokens of usage: pi compacts before
// and after the turn): ctxc writes pi's summary, and when ctxc fails pi compacts on its own.

// piCompaction runs resume.sh pi on the large pi sample with setup as CTXC_RESUME_SETUP and env,
// and returns every request pi sent and the session file as pi left it.
func piCompaction(t *testing.T, resume, setup string, env ...string) (requests []string, session []byte) {
	t.Helper()
	src := "../../shared/samples/pi/pi-mono-v1-large-session-no-compaction.jsonl"
	if _, err := os.Stat(src); err != nil {
		t.Skip("../shared/samples absent")
	}
	cmd := exec.Command("bash", resume, "pi", src, "Reply with OK.")
	cmd.Env = append(os.Environ(), append(env, "CTXC_RESUME_SETUP="+setup, "CTXC_RESUME_PI_WINDOW=30000",
		"FAKEMODEL_ARGS=-input-tokens 29500", "CTXC_RESUME_ALL=1", "CTXC_RESUME_KEEP=1")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	kept := regexp.MustCompile(`kept (\S+)`).FindStringSubmatch(stderr.String())
	if kept != nil {
		t.Cleanup(func() { os.RemoveAll(kept[1]) })
	}
	if err != nil || kept == nil {
		t.Fatalf("resume.sh pi: %v: %s", err, stderr.String())
	}
	session, err = os.ReadFile(filepath.Join(kept[1], "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), session
}

// compactions are the compaction entries of a pi session.
func compactions(session []byte) []gjson.Result {
	var out []gjson.Result
	for _, l := range bytes.Split(session, []byte("\n")) {
		if gjson.GetBytes(l, "type").Str == "compaction" {
			out = append(out, gjson.ParseBytes(l))
		}
	}
	return out
}

// summarizing tells whether a request is pi's own summarization request.
func summarizing(req string) bool { return strings.Contains(req, "<conversation>") }

func TestAgentPiCompactor(t *testing.T) {
	resume := agentTools(t)
	bin := builtCtxc(t)
	t.Run("ctxc writes pi's summary", func(t *testing.T) {
		reqs, session := piCompaction(t, resume, bin+" hooks install pi")
		for i, r := range reqs {
			if summarizing(r) {
				t.Errorf("request %d of %d is pi's own summarization request: ctxc should have written the summary", i+1, len(reqs))
			}
		}
		turn := reqs[len(reqs)-1]
		if !strings.Contains(turn, "compacted into the following summary") || !strings.Contains(turn, "## Carried verbatim by ctxc") {
			t.Fatalf("pi's turn does not carry ctxc's summary:\n%.2000s", turn)
		}
		cs := compactions(session)
		if len(cs) == 0 {
			t.Fatal("pi wrote no compaction entry")
		}
		for i, c := range cs {
			if !c.Get("fromHook").Bool() || c.Get("details.ctxc.provider").Str != "extractive" {
				t.Errorf("compaction %d: not ctxc's: %.300s", i+1, c.Raw)
			}
		}
		// ctxc audit of pi's file: every ctxc compaction keeps at least 99% of its facts.
		p := filepath.Join(t.TempDir(), "pi.jsonl")
		os.WriteFile(p, session, 0o644)
		out, err := exec.Command(bin, "audit", "--json", p).Output()
		if err != nil {
			t.Fatalf("ctxc audit: %v", err)
		}
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var c struct {
				Type, By string
				Recall   float64
				Total    struct{ Facts int }
			}
			json.Unmarshal([]byte(l), &c)
			if c.Type != "compaction" {
				continue
			}
			n++
			if c.By != "ctxc" || c.Recall < 0.99 || c.Total.Facts == 0 {
				t.Errorf("audit of pi's compaction %d: %s", n, l)
			}
		}
		if n != len(cs) {
			t.Fatalf("audit found %d compactions, pi wrote %d:\n%s", n, len(cs), out)
		}
	})
	t.Run("memory flushed before pi compacts", func(t *testing.T) {
		mem := filepath.Join(t.TempDir(), "AGENTS.md")
		os.WriteFile(mem, []byte("# pi-mono\n"), 0o644)
		reqs, session := piCompaction(t, resume, bin+" hooks install pi --memory "+mem)
		if len(compactions(session)) == 0 || summarizing(reqs[0]) {
			t.Fatal("pi did not compact through ctxc")
		}
		data, _ := os.ReadFile(mem)
		for _, want := range []string{"# pi-mono\n\n<!-- ctxc:memory:start -->", "- invalid themes must NEVER explode _(1× in 1 session",
			"session.jsonl:856)_", "- `npm run build` _("} {
			if !strings.Contains(string(data), want) {
				t.Errorf("memory file lacks %q:\n%s", want, data)
			}
		}
	})
	t.Run("a failing summarizer: pi compacts on its own", func(t *testing.T) {
		reqs, session := piCompaction(t, resume, bin+" hooks install pi",
			"CTXC_PROVIDER=ollama", "CTXC_MODEL=m", "CTXC_ENDPOINT=http://127.0.0.1:1", "CTXC_TIMEOUT=5s")
		checkPiOwn(t, reqs, session)
	})
	t.Run("no ctxc binary: pi compacts on its own", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "ctxc")
		data, _ := os.ReadFile(bin)
		os.WriteFile(gone, data, 0o755)
		reqs, session := piCompaction(t, resume, gone+" hooks install pi && rm "+gone)
		checkPiOwn(t, reqs, session)
	})
}

// checkPiOwn: pi summarized with its own model (its summarization request reached the fake
// model) and wrote its own compaction entry.
func checkPiOwn(t *testing.T, reqs []string, session []byte) {
	t.Helper()
	own := 0
	for _, r := range reqs {
		if summarizing(r) {
			own++
		}
	}
	cs := compactions(session)
	if own == 0 || len(cs) == 0 {
		t.Fatalf("%d summarization requests, %d compaction entries: pi did not compact on its own", own, len(cs))
	}
	for i, c := range cs {
		if c.Get("fromHook").Bool() || c.Get("details.ctxc").Exists() {
			t.Errorf("compaction %d is ctxc's, though ctxc failed: %.300s", i+1, c.Raw)
		}
	}
}

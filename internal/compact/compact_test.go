package compact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// openAISession builds a session of turns, each an assistant tool call, its result and some
// text, with a user message every five turns.
func openAISession(turns int) string {
	var b strings.Builder
	b.WriteString(`{"role":"system","content":"You are a careful coding agent."}` + "\n")
	b.WriteString(`{"role":"user","content":"Refactor pkg/parse; keep the API stable. Never touch vendor/."}` + "\n")
	filler := strings.Repeat("parser output line; ", 60)
	for t := 0; t < turns; t++ {
		id := fmt.Sprintf("call_%d", t)
		fmt.Fprintf(&b, `{"role":"assistant","content":"Step %d","tool_calls":[{"id":"%s","type":"function","function":{"name":"read","arguments":"{\"path\":\"pkg/parse/f%d.go\"}"}}]}`+"\n", t, id, t)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"%s","content":"%s"}`+"\n", id, filler)
		if t%5 == 4 {
			fmt.Fprintf(&b, `{"role":"user","content":"Continue with step %d."}`+"\n", t+1)
		}
	}
	b.WriteString(`{"role":"assistant","content":"Done."}` + "\n")
	return b.String()
}

func anthropicSession(turns int) string {
	var b strings.Builder
	b.WriteString(`{"role":"user","content":"Find the bug in cmd/main.go"}` + "\n")
	filler := strings.Repeat("log output ", 150)
	for t := 0; t < turns; t++ {
		id := fmt.Sprintf("toolu_%02d", t)
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"thinking","thinking":"look at file %d","signature":"c2ln"},{"type":"tool_use","id":"%s","name":"bash","input":{"cmd":"cat f%d"}}]}`+"\n", t, id, t)
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","content":"%s"}]}`+"\n", id, filler)
	}
	b.WriteString(`{"role":"assistant","content":[{"type":"text","text":"Found it."}]}` + "\n")
	return b.String()
}

func writeOld(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	return p
}

func baseOptions() Options {
	return Options{Threshold: 3000, Target: 500, Idle: DefaultIdle, Now: testNow, Zones: ZoneOptions{KeepTail: 6}}
}

func load(t *testing.T, p string) []transcript.Message {
	t.Helper()
	_, msgs, err := transcript.LoadFile(p, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		format        transcript.Format
	}{
		{"openai", openAISession(40), transcript.FormatOpenAI},
		{"anthropic", anthropicSession(40), transcript.FormatAnthropic},
		{"crabtalk", `{"agent":"crab","created_by":"user","created_at":"2026-03-24T10:00:00+00:00"}` + "\n" + openAISession(40), transcript.FormatCtxc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeOld(t, tc.name+".jsonl", tc.content)
			orig := load(t, p)
			before, _ := os.ReadFile(p)
			out, err := File(context.Background(), p, baseOptions())
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != StatusCompacted || out.Provider != "extractive" {
				t.Fatalf("outcome %+v", out)
			}
			after, _ := os.ReadFile(p)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("bytes before the append changed")
			}
			got := load(t, p)
			z := PlanZones(orig, baseOptions().Zones)
			head, tail := orig[:z.HeadEnd], orig[z.TailStart:]
			if len(got) != len(head)+1+len(tail) {
				t.Fatalf("reloaded %d messages, want %d+1+%d", len(got), len(head), len(tail))
			}
			for i := range head {
				if !bytes.Equal(got[i].Raw, head[i].Raw) {
					t.Errorf("head %d: %s != %s", i, got[i].Raw, head[i].Raw)
				}
			}
			if !got[len(head)].Summary || !strings.HasPrefix(got[len(head)].TextContent(), transcript.SummaryPreamble) {
				t.Errorf("message after head is not the summary: %+v", got[len(head)])
			}
			for i := range tail {
				if !bytes.Equal(got[len(head)+1+i].Raw, tail[i].Raw) {
					t.Errorf("tail %d differs", i)
				}
			}
			if _, rep := msglist.PairToolCalls(got); rep.DroppedResults != 0 || rep.Placeholders != 0 {
				t.Errorf("compacted context needs repair: %+v", rep)
			}
			// The marker records its provenance.
			_, line, err := transcript.FindLastMarker(bytes.NewReader(after), int64(len(after)))
			if err != nil || line == nil {
				t.Fatalf("marker not found: %v", err)
			}
			var mk transcript.Marker
			if err := json.Unmarshal(line, &mk); err != nil {
				t.Fatal(err)
			}
			if mk.Ctxc == nil || mk.Ctxc.Provider != "extractive" || mk.Ctxc.Created != "2026-11-01T12:00:00Z" ||
				mk.Ctxc.TokensAfter >= mk.Ctxc.TokensBefore || mk.Ctxc.TailLines != len(tail) || len(mk.Ctxc.Source.SHA256) != 64 {
				t.Errorf("marker meta %+v", mk.Ctxc)
			}
			// The source is the span of file lines the middle covered, as sed would print it.
			if src := mk.Ctxc.Source; src.FromLine != orig[z.HeadEnd].Line || src.ToLine != orig[z.TailStart-1].Line ||
				src.SHA256 != linesSHA(before, src.FromLine, src.ToLine) {
				t.Errorf("marker source %+v, want lines %d-%d with digest %s", src, orig[z.HeadEnd].Line, orig[z.TailStart-1].Line,
					linesSHA(before, orig[z.HeadEnd].Line, orig[z.TailStart-1].Line))
			}

			// Compacting again stacks: same head, the previous summary folded into the middle.
			more := strings.Repeat(strings.SplitAfter(tc.content, "\n")[3], 1) // a tool-free assistant line is not guaranteed; add turns instead
			_ = more
			appendTurns(t, p, tc.name)
			out2, err := File(context.Background(), p, baseOptions())
			if err != nil || out2.Status != StatusCompacted {
				t.Fatalf("second compaction: %+v %v", out2, err)
			}
			got2 := load(t, p)
			summaries := 0
			for i := range got2 {
				if got2[i].Summary {
					summaries++
				}
			}
			if summaries != 1 {
				t.Errorf("after stacking: %d summaries in the context, want 1", summaries)
			}
			for i := range head {
				if !bytes.Equal(got2[i].Raw, head[i].Raw) {
					t.Errorf("stacked head %d differs", i)
				}
			}
		})
	}
}

// appendTurns adds enough conversation after a compaction to go over the threshold again.
func appendTurns(t *testing.T, p, dialect string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("more output ", 200)
	for i := 0; i < 12; i++ {
		if dialect == "anthropic" {
			fmt.Fprintf(f, `{"role":"user","content":"next %d: %s"}`+"\n", i, filler)
			fmt.Fprintf(f, `{"role":"assistant","content":[{"type":"text","text":"ok %d"}]}`+"\n", i)
		} else {
			fmt.Fprintf(f, `{"role":"user","content":"next %d: %s"}`+"\n", i, filler)
			fmt.Fprintf(f, `{"role":"assistant","content":"ok %d"}`+"\n", i)
		}
	}
	f.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
}

func TestRefusalsWriteNothing(t *testing.T) {
	short := openAISession(2)
	for _, tc := range []struct {
		name    string
		content string
		opts    func(*Options)
		reason  string
	}{
		{"under threshold", short, func(o *Options) { o.Threshold = 1_000_000 }, ReasonUnderThreshold},
		// A task and one answer: even the emergency level has nothing to summarize.
		{"empty middle", `{"role":"user","content":"` + strings.Repeat("task ", 400) + `"}` + "\n" + `{"role":"assistant","content":"` + strings.Repeat("done ", 400) + `"}` + "\n",
			func(o *Options) { o.Threshold = 10 }, ReasonEmptyMiddle},
		// The last message is the user's own text, which no level cuts.
		{"no gain", openAISession(40) + `{"role":"user","content":"` + strings.Repeat("my notes ", 3000) + `"}` + "\n",
			func(o *Options) { o.Threshold = 3000 }, ReasonNoGain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeOld(t, "s.jsonl", tc.content)
			o := baseOptions()
			tc.opts(&o)
			out, err := File(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != StatusSkipped || out.Reason != tc.reason {
				t.Errorf("got %s %q, want skipped %q", out.Status, out.Reason, tc.reason)
			}
			if b, _ := os.ReadFile(p); string(b) != tc.content {
				t.Error("file changed")
			}
		})
	}
}

// TestNativeCompaction: compacting an agent's own file appends that agent's compaction records
// (the bytes before stay), and reloading gives head + summary + tail, smaller than before;
// stacking a second compaction works; -o writes a new native session with a fresh id;
// --output-format ctxc writes a ctxc file and is refused in place. cmd/agents_test.go checks
// the same files with the real agents.
func TestNativeCompaction(t *testing.T) {
	for name, content := range testsessions.Agent() {
		t.Run(name, func(t *testing.T) {
			p := writeOld(t, name+".jsonl", content)
			o := baseOptions()
			out, err := File(context.Background(), p, o)
			if err != nil || out.Status != StatusCompacted {
				t.Fatalf("in place: %+v %v", out, err)
			}
			b, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(b), content) {
				t.Fatal("bytes before the append changed")
			}
			got := load(t, p)
			if string(got[0].Role) != "user" || !strings.Contains(got[0].TextContent(), "do the thing in main.go") {
				t.Errorf("context starts with %s %q", got[0].Role, got[0].TextContent())
			}
			if last := got[len(got)-1]; last.TextContent() != "Tests written." {
				t.Errorf("context ends with %q", last.TextContent())
			}
			summaries := 0
			for _, m := range got {
				if m.Summary {
					summaries++
				}
			}
			if summaries != 1 || tokens(got) >= out.TokensBefore {
				t.Errorf("reloaded: %d summaries, %d tokens (before %d)", summaries, tokens(got), out.TokensBefore)
			}
			if _, rep := msglist.PairToolCalls(got); rep.DroppedResults != 0 || rep.Placeholders != 0 {
				t.Errorf("context needs repair: %+v", rep)
			}
			res, err := transcript.Scan(strings.NewReader(string(b)), p, transcript.Options{})
			if err != nil || res.Stats.Format != transcript.Format(name) || res.Stats.Compactions != 1 {
				t.Fatalf("stats after: %+v %v", res.Stats, err)
			}
			// The copies of head and tail are not history: only the summary is new.
			res0, _ := transcript.Scan(strings.NewReader(content), p, transcript.Options{})
			if h0, h1 := res0.Stats.Messages.Total(), res.Stats.Messages.Total(); h1 > h0+1 {
				t.Errorf("history %d messages before, %d after", h0, h1)
			}
			// Stacking: more turns, then compact again.
			f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(testsessions.MoreTurns(name, b))
			f.Close()
			old := time.Now().Add(-time.Hour)
			os.Chtimes(p, old, old)
			o.Threshold = 1500
			if out, err := File(context.Background(), p, o); err != nil || out.Status != StatusCompacted {
				t.Fatalf("second compaction: %+v %v", out, err)
			}
			got = load(t, p)
			summaries = 0
			for _, m := range got {
				if m.Summary {
					summaries++
				}
			}
			if summaries != 1 || !strings.Contains(got[0].TextContent(), "do the thing in main.go") {
				t.Errorf("after stacking: %d summaries, first %q", summaries, got[0].TextContent())
			}

			// -o: a new native session.
			o = baseOptions()
			o.Output = filepath.Join(t.TempDir(), "new.jsonl")
			q := writeOld(t, name+"-2.jsonl", content)
			out, err = File(context.Background(), q, o)
			if err != nil || out.Status != StatusCompacted || out.Session == "" || out.Resume == "" {
				t.Fatalf("-o: %+v %v", out, err)
			}
			nb, _ := os.ReadFile(o.Output)
			if !strings.Contains(string(nb), out.Session) || strings.Contains(string(nb), "9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b") || strings.Contains(string(nb), "019e19b4-eb48-746a-aa6b-8dfcfa37954b") || strings.Contains(string(nb), "0199a000-0000-7000-8000-000000000009") {
				t.Errorf("new session does not carry only its fresh id %s", out.Session)
			}
			if nres, _ := transcript.Scan(strings.NewReader(string(nb)), o.Output, transcript.Options{}); nres.Stats.Format != transcript.Format(name) {
				t.Errorf("new file format %s", nres.Stats.Format)
			}
			if b, _ := os.ReadFile(q); string(b) != content {
				t.Fatal("source changed by -o")
			}
			// --output-format ctxc.
			o.OutputFormat = "ctxc"
			if out, err := File(context.Background(), q, o); err != nil || out.Status != StatusCompacted {
				t.Fatalf("-o ctxc: %+v %v", out, err)
			}
			if nres, _ := transcript.Scan(strings.NewReader(mustRead(t, o.Output)), o.Output, transcript.Options{}); nres.Stats.Format != transcript.FormatCtxc {
				t.Errorf("ctxc output format %s", nres.Stats.Format)
			}
			o.Output = ""
			var ue *UsageError
			if _, err := File(context.Background(), q, o); !errors.As(err, &ue) {
				t.Errorf("in place with ctxc output: %v", err)
			}
		})
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBusyFiles(t *testing.T) {
	content := openAISession(40)
	// Live: modified just now.
	p := filepath.Join(t.TempDir(), "live.jsonl")
	os.WriteFile(p, []byte(content), 0o644)
	o := baseOptions()
	o.Now = time.Now()
	if _, err := File(context.Background(), p, o); !IsBusy(err) {
		t.Fatalf("live file: %v", err)
	}
	o.Force = true
	if out, err := File(context.Background(), p, o); err != nil || out.Status != StatusCompacted {
		t.Fatalf("--force: %+v %v", out, err)
	}
	// Locked by another ctxc.
	p2 := writeOld(t, "locked.jsonl", content)
	unlock, err := safewrite.Lock(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := File(context.Background(), p2, baseOptions()); !IsBusy(err) {
		t.Fatalf("locked file: %v", err)
	}
	if b, _ := os.ReadFile(p2); string(b) != content {
		t.Fatal("locked file changed")
	}
}

func TestDeterministicExtractive(t *testing.T) {
	content := openAISession(40)
	a := writeOld(t, "a.jsonl", content)
	b := writeOld(t, "b.jsonl", content)
	for _, p := range []string{a, b} {
		if _, err := File(context.Background(), p, baseOptions()); err != nil {
			t.Fatal(err)
		}
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Fatal("same input and --now gave different output")
	}
}

func TestDryRunAndCheck(t *testing.T) {
	content := openAISession(40)
	p := writeOld(t, "s.jsonl", content)
	o := baseOptions()
	o.DryRun = true
	out, err := File(context.Background(), p, o)
	if err != nil || out.Status != StatusPlanned || out.Plan == nil || !out.Plan.Compact {
		t.Fatalf("dry run: %+v %v", out, err)
	}
	pl := out.Plan
	if pl.Head.Messages != 2 || pl.Tail.Messages < 6 || pl.Head.Tokens+pl.Middle.Tokens+pl.Tail.Tokens != pl.TokensBefore {
		t.Errorf("plan zones: %+v", pl)
	}
	o = baseOptions()
	o.Check = true
	if out, err := File(context.Background(), p, o); err != nil || out.Status != StatusOver {
		t.Errorf("check: %+v %v", out, err)
	}
	if b, _ := os.ReadFile(p); string(b) != content {
		t.Fatal("dry-run/check changed the file")
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, kind string }{
		{"key sk-proj-abcdefghijklmnopqrstuvwxyz0123 here", "openai-key"},
		{"export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuv", "anthropic-key"},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"},
		{"AKIAABCDEFGHIJKLMNOP", "aws-access-key"},
		{"postgres://bob:hunter2secret@db.internal/app", "url-password"},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "bearer-token"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----", "private-key"},
		{`password = "correct horse battery"`, "secret-assignment"},
	} {
		got, n := Redact(tc.in)
		if n == 0 || !strings.Contains(got, "[REDACTED:"+tc.kind+"]") {
			t.Errorf("Redact(%q) = %q (%d)", tc.in, got, n)
		}
	}
	if got, n := Redact("plain text about sk- prefixes and tokens"); n != 0 {
		t.Errorf("false positive: %q", got)
	}
	if got, _ := Redact("postgres://bob:hunter2secret@db.internal/app"); strings.Contains(got, "hunter2") || !strings.Contains(got, "bob:") {
		t.Errorf("url password: %q", got)
	}
}

// linesSHA is `sed -n 'FROM,TOp' | sha256sum` over data.
func linesSHA(data []byte, from, to int) string {
	lines := bytes.SplitAfter(data, []byte("\n"))
	h := sha256.New()
	for i := from; i <= to && i <= len(lines); i++ {
		h.Write(lines[i-1])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Large tool results are read windowed (only their ends decoded) while compacting: the summary
// still sees their ends, and what is written (head, tail) is complete.
func TestLargeToolResultsAreWrittenWhole(t *testing.T) {
	big := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "START %d\n", i)
		for b.Len() < 6*transcript.ToolTextWindow {
			b.WriteString("\tcompiling pkg/x — ok \"quoted\" \\ 日本語\n")
		}
		fmt.Fprintf(&b, "--- FAIL: TestCase%d (0.01s)\nEND %d", i, i)
		return b.String()
	}
	enc := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	claude := `{"type":"user","uuid":"u0","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"run the tests"}}` + "\n"
	parent := "u0"
	for i := 0; i < 12; i++ {
		a, r := fmt.Sprintf("a%d", i), fmt.Sprintf("r%d", i)
		claude += fmt.Sprintf(`{"type":"assistant","uuid":"%s","parentUuid":"%s","sessionId":"s","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", a, parent, i, i)
		claude += fmt.Sprintf(`{"type":"user","uuid":"%s","parentUuid":"%s","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%s}]}}`+"\n", r, a, i, enc(big(i)))
		parent = r
	}
	p := writeOld(t, "claude.jsonl", claude)
	o := baseOptions()
	o.Zones.KeepTail = 4
	o.Target = 2000
	o.Threshold = 100000
	o.Output = filepath.Join(t.TempDir(), "out.jsonl")
	if out, err := File(context.Background(), p, o); err != nil || out.Status != StatusCompacted {
		t.Fatalf("compact: %+v %v", out, err)
	}
	got := load(t, o.Output)
	orig := load(t, p)
	tail := orig[len(orig)-4:]
	gotTail := got[len(got)-4:]
	for i := range tail {
		for j, b := range tail[i].Blocks {
			if b.Kind == transcript.BlockToolResult && gotTail[i].Blocks[j].Text != b.Text {
				t.Fatalf("tail message %d: tool result of %d bytes written as %d bytes", i, len(b.Text), len(gotTail[i].Blocks[j].Text))
			}
		}
	}
	summary := ""
	for _, m := range got {
		if m.Summary {
			summary = m.TextContent()
		}
	}
	// The failures are at the very end of each output, past the decoded head.
	if !strings.Contains(summary, "--- FAIL: TestCase") {
		t.Errorf("summary lacks the error lines at the end of the tool output:\n%s", summary)
	}
}

// In place, the tail copies (their lines read windowed, their bytes not kept) are verbatim.
func TestLargeToolResultsTailCopiesVerbatim(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"role":"user","content":"run the tests"}` + "\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, `{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"sh","arguments":"{\"cmd\":\"go test\"}"}}]}`+"\n", i)
		out, _ := json.Marshal(strings.Repeat(fmt.Sprintf("\tok pkg/%d — \"fine\"\n", i), 4000) + "--- FAIL: TestZ")
		fmt.Fprintf(&b, `{"tool_call_id":"c%d", "content":%s, "role":"tool"}`+"\n", i, out) // not how ctxc would write it
	}
	content := b.String()
	p := writeOld(t, "s.jsonl", content)
	o := baseOptions()
	o.Zones.KeepTail = 4
	o.Threshold = 100000
	if out, err := File(context.Background(), p, o); err != nil || out.Status != StatusCompacted {
		t.Fatalf("compact: %+v %v", out, err)
	}
	after, _ := os.ReadFile(p)
	lines := strings.SplitAfter(content, "\n")
	wantTail := strings.Join(lines[len(lines)-5:], "") // 4 lines and the empty string after the last newline
	if !strings.HasPrefix(string(after), content) || !strings.HasSuffix(string(after), wantTail) {
		t.Fatal("the file does not end with verbatim copies of the tail lines")
	}
}

// A windowed load decodes at least as much of each end of a tool result as a summarizer reads.
func TestToolTextWindowCoversSummarizers(t *testing.T) {
	if transcript.ToolTextWindow < summarize.ToolEndBytes {
		t.Fatalf("transcript.ToolTextWindow %d < summarize.ToolEndBytes %d", transcript.ToolTextWindow, summarize.ToolEndBytes)
	}
}

// TestEmergencyAlwaysFits: a session whose last turn read a 33,000-token log compacts under a
// 20,000-token threshold in every format: the tail shrinks, the log is cut to its ends with a
// note naming its line, the marker says "truncate" and what was cut, no call is separated from
// its result, and the bytes before the append are unchanged.
func TestEmergencyAlwaysFits(t *testing.T) {
	sessions := testsessions.Agent()
	sessions["openai"] = openAISession(40)
	for name, content := range sessions {
		t.Run(name, func(t *testing.T) {
			content := testsessions.HugeLastTurn(name, content)
			p := writeOld(t, "s.jsonl", content)
			o := baseOptions()
			o.Threshold = 20000
			dry := o
			dry.DryRun = true
			plan, err := File(context.Background(), p, dry)
			if err != nil || plan.Plan.Tier != TierEmergency || !plan.Plan.Compact || len(plan.Plan.Cuts) == 0 {
				t.Fatalf("plan: %+v %v", plan.Plan, err)
			}
			out, err := File(context.Background(), p, o)
			if err != nil || out.Status != StatusCompacted || out.Tier != TierEmergency || out.Cuts == 0 {
				t.Fatalf("emergency: %+v %v", out, err)
			}
			b, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(b), content) {
				t.Fatal("bytes before the append changed")
			}
			got := load(t, p)
			if tok := tokens(got); tok >= o.Threshold {
				t.Errorf("context after: %d tokens, threshold %d", tok, o.Threshold)
			}
			if _, rep := msglist.PairToolCalls(got); rep.Placeholders != 0 || rep.DroppedResults != 0 {
				t.Errorf("a call was separated from its result: %+v", rep)
			}
			found := false
			for _, m := range got {
				for _, bl := range m.Blocks {
					if bl.Kind == transcript.BlockToolResult && strings.Contains(bl.Text, "characters cut here by an emergency compaction") {
						found = true
						if !strings.HasPrefix(bl.Text, "2026-01-01 12:00:00 INFO") || !strings.HasSuffix(bl.Text, "in 56 ms\n") {
							t.Errorf("cut result lost its ends")
						}
					}
				}
			}
			if !found {
				t.Error("no cut result with its note in the context")
			}
			if last := got[len(got)-1]; last.TextContent() != "The log shows no errors." {
				t.Errorf("last message %q", last.TextContent())
			}
		})
	}
}

// TestTiers: the tier of a context at each boundary, with and without --window.
func TestTiers(t *testing.T) {
	for _, tc := range []struct {
		before, threshold, window int
		want                      string
	}{
		{1000, 1000, 0, ""},                // at the threshold: nothing to do
		{1001, 1000, 0, TierNormal},        // over it: normal (the threshold is 80% of its window)
		{1062, 1000, 0, TierNormal},        // 84.9%
		{1063, 1000, 0, TierAggressive},    // 85%
		{1187, 1000, 0, TierAggressive},    // 94.9%
		{1188, 1000, 0, TierEmergency},     // 95%
		{80001, 75000, 100000, TierNormal}, // 80%
		{85000, 75000, 100000, TierAggressive},
		{94999, 75000, 100000, TierAggressive},
		{95000, 75000, 100000, TierEmergency},
		{76000, 75000, 100000, TierNormal}, // over the threshold, under 80% of the window
	} {
		o := Options{Window: tc.window}
		if got, why := tierOf(tc.before, tc.threshold, &o); got != tc.want {
			t.Errorf("tierOf(%d, threshold %d, window %d) = %s (%s), want %s", tc.before, tc.threshold, tc.window, got, why, tc.want)
		}
	}
	// Configured fractions.
	o := Options{Tiers: Tiers{Normal: 0.5, Aggressive: 0.6, Emergency: 0.7}}
	if got, _ := tierOf(1400, 1000, &o); got != TierEmergency {
		t.Errorf("with 50/60/70%%: %s, want emergency (1400 = 70%% of 2000)", got)
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/codex"
	"github.com/ctxc/ctxc/internal/conv"
)

const readerSamplesDir = "../../../shared/samples"

// readTranscript reads a file with a forced or detected format and checks the invariants every
// reader must keep: the effective messages are as many as the refs say and their tokens add up
// to Stats.EffTokens; every message has its line.
func readTranscript(t *testing.T, path string, f Format) (*Stats, []Message) {
	t.Helper()
	res, msgs, err := readFile(path, Options{Format: f})
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	st := res.Stats
	tok := 0
	for i := range msgs {
		tok += msgs[i].Tokens()
		if msgs[i].Line <= 0 {
			t.Errorf("%s: message %d has no line", path, i)
		}
	}
	if int64(tok) != st.EffTokens {
		t.Errorf("%s: effective messages hold %d tokens, stats say %d", path, tok, st.EffTokens)
	}
	if len(msgs) != st.EffMessages {
		t.Errorf("%s: %d effective messages, stats say %d", path, len(msgs), st.EffMessages)
	}
	return st, msgs
}

// sampleFile returns the path of a real sample, skipping the test when samples are absent.
func sampleFile(t *testing.T, rel string) string {
	t.Helper()
	if _, err := os.Stat(readerSamplesDir); err != nil {
		t.Skipf("no samples directory %s", readerSamplesDir)
	}
	return filepath.Join(readerSamplesDir, rel)
}

// roleSeq renders messages as role letters: s(ystem) d(eveloper) u(ser) a(ssistant) t(ool),
// with S for a summary.
func roleSeq(msgs []Message) string {
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Summary:
			b.WriteByte('S')
		case m.Role == RoleSystem:
			b.WriteByte('s')
		case m.Role == RoleDeveloper:
			b.WriteByte('d')
		case m.Role == RoleUser:
			b.WriteByte('u')
		case m.Role == RoleAssistant:
			b.WriteByte('a')
		case m.Role == RoleTool:
			b.WriteByte('t')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

func countRoles(msgs []Message) (rc RoleCounts, calls, results int) {
	for i := range msgs {
		rc.Add(conv.StatsRole(&msgs[i]))
		calls += msgs[i].ToolCalls()
		results += msgs[i].ToolResults()
	}
	return
}

func TestCodexFiles(t *testing.T) {
	for _, tc := range []struct {
		name, path   string
		history      RoleCounts
		calls, res   int
		compactions  int
		effective    string // roleSeq of the effective context
		effCalls     int
		effResults   int
		window       int
		sameAsHist   bool // effective context == whole history
		detectFormat bool
	}{
		{name: "agentcmd v0.40 sample", path: "codex/agentcmd-v0.40.0-rollout-2025-09-25T15-12-14.jsonl",
			history: RoleCounts{User: 2, Assistant: 35, Tool: 34}, calls: 34, res: 34,
			effective: "uu" + strings.Repeat("at", 34) + "a", effCalls: 34, effResults: 34, window: 272000, sameAsHist: true},
		{name: "localpush v0.104 sample", path: "codex/localpush-v0.104-redacted-small.jsonl",
			history: RoleCounts{Developer: 4, User: 4, Assistant: 1}, calls: 1, res: 0,
			// the open call is answered as Codex answers it on resume ("aborted"): one more
			// message in the context than in the history
			effective: "dduuddu" + "u" + "a" + "t", effCalls: 1, effResults: 1, window: 258400},
		{name: "bare era", path: "fixtures/codex-bare.jsonl",
			history: RoleCounts{User: 2, Assistant: 2, Tool: 1}, calls: 1, res: 1,
			effective: "uuata", effCalls: 1, effResults: 1, sameAsHist: true, detectFormat: true},
		{name: "replacement_history", path: "fixtures/codex-replacement-history.jsonl",
			history: RoleCounts{Developer: 1, User: 3, Assistant: 5, Tool: 4}, calls: 4, res: 4, compactions: 1,
			effective: "duaSuatta", effCalls: 2, effResults: 2, window: 272000, detectFormat: true},
		{name: "legacy compacted", path: "fixtures/codex-legacy-compacted.jsonl",
			history: RoleCounts{User: 6, Assistant: 4, Tool: 1}, calls: 1, res: 1, compactions: 1,
			effective: "uuuSua", window: 272000, detectFormat: true},
		{name: "thread rollback", path: "fixtures/codex-rollback.jsonl",
			history: RoleCounts{User: 5, Assistant: 4}, effective: "uuaua", detectFormat: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			if strings.HasPrefix(tc.path, "fixtures/") {
				path = filepath.Join("../../testdata", tc.path)
			} else {
				path = sampleFile(t, tc.path)
			}
			f := FormatCodex
			if tc.detectFormat {
				f = FormatUnknown
			}
			st, msgs := readTranscript(t, path, f)
			checkHistory(t, st, FormatCodex, tc.history, tc.calls, tc.res, tc.compactions)
			if got := roleSeq(msgs); got != tc.effective {
				t.Errorf("effective = %s, want %s", got, tc.effective)
			}
			_, calls, results := countRoles(msgs)
			if calls != tc.effCalls || results != tc.effResults {
				t.Errorf("effective calls/results = %d/%d, want %d/%d", calls, results, tc.effCalls, tc.effResults)
			}
			if tc.window > 0 && (st.Usage == nil || st.Usage.ContextWindow != tc.window) {
				t.Errorf("usage = %+v, want window %d", st.Usage, tc.window)
			}
			if tc.sameAsHist && (st.EffTokens != st.Tokens || st.EffMessages != st.Messages.Total()) {
				t.Errorf("effective %d msgs / %d tokens, history %d / %d", st.EffMessages, st.EffTokens, st.Messages.Total(), st.Tokens)
			}
		})
	}
}

func TestCodexAgentcmdSample(t *testing.T) {
	st, msgs := readTranscript(t, sampleFile(t, "codex/agentcmd-v0.40.0-rollout-2025-09-25T15-12-14.jsonl"), FormatUnknown)
	if st.Format != FormatCodex {
		t.Fatalf("format = %s", st.Format)
	}
	want := RecordedUsage{Responses: 35, InputTokens: 64514, OutputTokens: 6654, CacheRead: 472320, LastContext: 28389, ContextWindow: 272000}
	if st.Usage == nil || *st.Usage != want {
		t.Errorf("usage = %+v, want %+v", st.Usage, want)
	}
	if !strings.HasPrefix(msgs[0].TextContent(), "<environment_context>") || !strings.HasPrefix(msgs[1].TextContent(), "# Context from my IDE setup:") {
		t.Errorf("first messages: %q / %q", msgs[0].TextContent(), msgs[1].TextContent())
	}
	// Reasoning summary and call are one assistant message.
	a := msgs[2]
	if len(a.Blocks) != 2 || a.Blocks[0].Kind != BlockThinking || a.Blocks[0].Text != "**Evaluating repo structure and planning**" ||
		a.Blocks[1].Kind != BlockToolCall || a.Blocks[1].Name != "shell" || a.Blocks[1].ID != "call_mux7Gp4q9YON9fYffwerwHgr" ||
		!strings.HasPrefix(a.Blocks[1].Args, `{"command":["bash","-lc","ls"]`) {
		t.Errorf("first assistant message = %+v", a)
	}
	r := msgs[3]
	if r.Role != RoleTool || r.Blocks[0].ID != "call_mux7Gp4q9YON9fYffwerwHgr" || !strings.HasPrefix(r.Blocks[0].Text, `{"output":"CLAUDE.md\nREADME.md`) {
		t.Errorf("first tool result = %+v", r)
	}
	last := msgs[len(msgs)-1]
	if last.Role != RoleAssistant || !strings.HasPrefix(last.TextContent(), "**Findings**") || last.Blocks[0].Kind != BlockThinking {
		t.Errorf("last message = %+v", last)
	}
	// The encrypted reasoning is never counted: no thinking block is larger than its summary.
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if strings.Contains(b.Text, "gAAAAA") {
				t.Fatalf("encrypted content leaked into line %d", m.Line)
			}
		}
	}
}

func TestCodexLocalpushSample(t *testing.T) {
	st, msgs := readTranscript(t, sampleFile(t, "codex/localpush-v0.104-redacted-small.jsonl"), FormatUnknown)
	want := RecordedUsage{Responses: 1, InputTokens: 34469 - 3456, OutputTokens: 431, CacheRead: 3456, LastContext: 34469, ContextWindow: 258400}
	if st.Usage == nil || *st.Usage != want {
		t.Errorf("usage = %+v, want %+v", st.Usage, want)
	}
	// reasoning + commentary + the exec_command call, as one message, then the output Codex
	// gives a call left open when it resumes
	if a := msgs[len(msgs)-1]; a.Role != RoleTool || a.Blocks[0].Text != codex.AbortedOutput || a.Blocks[0].ID != msgs[len(msgs)-2].Blocks[2].ID {
		t.Errorf("last message = %+v", a)
	}
	last := msgs[len(msgs)-2]
	if last.Role != RoleAssistant || len(last.Blocks) != 3 || last.Blocks[2].Kind != BlockToolCall || last.Blocks[2].Name != "exec_command" {
		t.Errorf("last message = %+v", last)
	}
}

func TestCodexReplacementHistory(t *testing.T) {
	st, msgs := readTranscript(t, "../../testdata/fixtures/codex-replacement-history.jsonl", FormatUnknown)
	want := RecordedUsage{Responses: 2, InputTokens: 1000, OutputTokens: 350, CacheRead: 6000, LastContext: 2000, ContextWindow: 272000}
	if *st.Usage != want {
		t.Errorf("usage = %+v, want %+v (the repeated token_count must not count twice)", *st.Usage, want)
	}
	if st.Images != 1 {
		t.Errorf("images = %d", st.Images)
	}
	// The base comes from line 22's replacement_history; later items follow.
	for i := 0; i < 4; i++ {
		if msgs[i].Line != 22 {
			t.Errorf("message %d line = %d, want 22", i, msgs[i].Line)
		}
	}
	texts := []string{"<permissions instructions>sandboxed</permissions instructions>", "Fix the failing test", "Fixed the off-by-one."}
	for i, w := range texts {
		if got := msgs[i].TextContent(); got != w {
			t.Errorf("message %d = %q, want %q", i, got, w)
		}
	}
	if s := msgs[3]; !s.Summary || s.Chars() != 0 || s.Blocks[0].Kind != BlockOpaque {
		t.Errorf("compaction item = %+v", s)
	}
	if msgs[4].TextContent() != "Now run the linter" || msgs[4].Line != 25 {
		t.Errorf("first later message = %+v", msgs[4])
	}
	a := msgs[5]
	if a.ToolCalls() != 2 || a.Blocks[0].ID != "call_lint" || a.Blocks[1].ID != "call_vet" || a.Blocks[1].Args != `{"command":["go","vet","./..."]}` {
		t.Errorf("parallel calls = %+v", a)
	}
	if msgs[6].Blocks[0].ID != "call_lint" || msgs[6].Blocks[0].Text != "0 issues." || msgs[7].Blocks[0].ID != "call_vet" {
		t.Errorf("results = %+v %+v", msgs[6], msgs[7])
	}
}

func TestCodexHistoryItems(t *testing.T) {
	// Before the compaction, with the effective context being the whole file: cut the fixture.
	data, err := os.ReadFile("../../testdata/fixtures/codex-replacement-history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	head := strings.Join(lines[:21], "")
	res, err := scanLines(strings.NewReader(head), "head", Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := res.Messages(strings.NewReader(head))
	if err != nil {
		t.Fatal(err)
	}
	if got := roleSeq(msgs); got != "duuatata" {
		t.Fatalf("effective = %s", got)
	}
	u := msgs[2]
	if u.Blocks[1].Kind != BlockImage || u.Tokens() != 5+1600 {
		t.Errorf("user with image = %+v (%d tokens)", u, u.Tokens())
	}
	a := msgs[3] // reasoning + local_shell_call + web_search_call
	if len(a.Blocks) != 3 || a.Blocks[0].Text != "**Running tests**" || a.Blocks[1].Name != "local_shell" ||
		a.Blocks[1].ID != "call_sh" || a.Blocks[1].Args != `{"type":"exec","command":["go","test","./..."]}` ||
		a.Blocks[2].Kind != BlockOpaque || a.Blocks[2].Chars != len(`{"type":"search","query":"go test flags"}`) {
		t.Errorf("assistant = %+v", a)
	}
	c := msgs[5]
	if c.Blocks[0].Name != "apply_patch" || c.Blocks[0].Args != "*** Begin Patch\n*** End Patch" || c.Blocks[0].ID != "call_patch" {
		t.Errorf("custom tool call = %+v", c)
	}
	if r := msgs[6]; r.Blocks[0].Text != "Success." || r.Blocks[0].ID != "call_patch" {
		t.Errorf("custom tool output = %+v", r)
	}
	if res.Stats.EffTokens != res.Stats.Tokens {
		t.Errorf("eff %d != history %d tokens", res.Stats.EffTokens, res.Stats.Tokens)
	}
}

func TestCodexLegacyCompacted(t *testing.T) {
	st, msgs := readTranscript(t, "../../testdata/fixtures/codex-legacy-compacted.jsonl", FormatUnknown)
	want := []struct {
		line int
		text string
	}{
		{2, "<user_instructions>\nBe brief.\n</user_instructions>"},
		// The recorded environment context is not rebuilt: Codex sends a fresh one (0.169,
		// checked through resume.sh in cmd/agents_test.go).
		{4, "first task: add a --verbose flag"},
		{7, "second task: write the docs\nin docs/flags.md"},
		{12, "Another language model started to solve this problem and produced a summary of its thinking process. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:\nThe --verbose flag was added and documented in docs/flags.md."},
		{13, "third task: tag a release"},
		{14, "Tagged v1.2.0."},
	}
	if len(msgs) != len(want) {
		t.Fatalf("effective = %s", roleSeq(msgs))
	}
	for i, w := range want {
		if msgs[i].Line != w.line || msgs[i].TextContent() != w.text {
			t.Errorf("message %d = line %d %q, want line %d %q", i, msgs[i].Line, msgs[i].TextContent(), w.line, w.text)
		}
		if len(msgs[i].Blocks) != 1 {
			t.Errorf("message %d has %d blocks", i, len(msgs[i].Blocks))
		}
	}
	if !msgs[3].Summary {
		t.Error("summary not marked")
	}
	if st.Usage.Responses != 1 || st.Usage.LastContext != 900 {
		t.Errorf("usage = %+v", st.Usage)
	}
}

// TestCodexLegacyBudget checks the 20,000-token bound on the user messages kept by a legacy
// compaction: newest first, the oldest selected one truncated, older ones dropped.
func TestCodexLegacyBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"timestamp":"t","type":"session_meta","payload":{"id":"x","timestamp":"t"}}` + "\n")
	user := func(s string) {
		b.WriteString(`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + s + `"}]}}` + "\n")
	}
	user("u0 dropped")
	user("A" + strings.Repeat("a", 29999)) // 7,500 tokens each
	user("B" + strings.Repeat("b", 29999))
	user("C" + strings.Repeat("c", 29999))
	b.WriteString(`{"timestamp":"t","type":"compacted","payload":{"message":""}}` + "\n")
	path := filepath.Join(t.TempDir(), "budget.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, msgs := readTranscript(t, path, FormatUnknown)
	if got := roleSeq(msgs); got != "uuuS" {
		t.Fatalf("effective = %s", got)
	}
	if n := msgs[0].Chars(); n != 5000*4 || !strings.HasPrefix(msgs[0].TextContent(), "Aaaa") {
		t.Errorf("truncated oldest: %d chars", n)
	}
	if msgs[1].Tokens() != 7500 || msgs[2].Tokens() != 7500 || msgs[0].Tokens()+msgs[1].Tokens()+msgs[2].Tokens() != 20000 {
		t.Errorf("tokens %d %d %d", msgs[0].Tokens(), msgs[1].Tokens(), msgs[2].Tokens())
	}
	if msgs[3].TextContent() != "(no summary available)" {
		t.Errorf("summary = %q", msgs[3].TextContent())
	}
}

func TestCodexRollback(t *testing.T) {
	_, msgs := readTranscript(t, "../../testdata/fixtures/codex-rollback.jsonl", FormatUnknown)
	var got []string
	for _, m := range msgs {
		got = append(got, m.TextContent())
	}
	if strings.Join(got[1:], ",") != "one,1,four,4" {
		t.Errorf("after rollback: %q", got)
	}
}

func TestCodexBare(t *testing.T) {
	st, msgs := readTranscript(t, "../../testdata/fixtures/codex-bare.jsonl", FormatUnknown)
	if st.Usage != nil {
		t.Errorf("usage = %+v", st.Usage)
	}
	a := msgs[2]
	if a.Blocks[0].Text != "**Listing files**" || a.Blocks[1].Args != `{"command":["ls"]}` || a.Line != 6 {
		t.Errorf("assistant = %+v", a)
	}
	// Merged message: one message whose tokens are ceil(all chars / 4).
	if a.Tokens() != (a.Chars()+3)/4 {
		t.Errorf("tokens %d for %d chars", a.Tokens(), a.Chars())
	}
	if msgs[4].TextContent() != "Two files: a.go and b.go." {
		t.Errorf("last = %+v", msgs[4])
	}
}

func FuzzCodexReader(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/fixtures/codex-*.jsonl")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"timestamp":"t","type":"compacted","payload":{"replacement_history":[{"type":"reasoning","summary":[{"text":"x"}]},{"type":"function_call","call_id":"c"}]}}` + "\n" +
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"d","arguments":"{}"}}` + "\n" +
		`{"timestamp":"t","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":9}}` + "\n"))
	// A line may start with white space (gjson accepts it): materialize must see what add saw.
	f.Add([]byte("{\"type\":\"message\",\"role\":\"user\",\"content\":\"hi\"}\n \r{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"yo\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, data, FormatCodex) })
}

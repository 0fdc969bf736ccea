package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/pi"
)

func piSummaryText(s string) string { return pi.CompactionPrefix + s + pi.CompactionSuffix }

func TestPiFiles(t *testing.T) {
	for _, tc := range []struct {
		name, path  string
		history     RoleCounts
		calls, res  int
		compactions int
		effective   string
		effCalls    int
		effResults  int
		usage       RecordedUsage
	}{
		{name: "pi-mono v1 large sample", path: "pi/pi-mono-v1-large-session-no-compaction.jsonl",
			history: RoleCounts{User: 88, Assistant: 439, Tool: 373}, calls: 391, res: 373,
			effCalls: 373, effResults: 373,
			usage: RecordedUsage{Responses: 439, InputTokens: 1049, OutputTokens: 83156, CacheRead: 43229469, CacheWrite: 4296232, LastContext: 177604}},
		{name: "agent-sessions v3 sample", path: "pi/agent-sessions-v3-fixture-model-2-compactions.jsonl",
			history: RoleCounts{User: 4, Assistant: 2}, compactions: 2, effective: "Suaua",
			usage: RecordedUsage{Responses: 2, InputTokens: 24, OutputTokens: 14, LastContext: 12}},
		{name: "v1 two compactions", path: "fixtures/pi-v1-two-compactions.jsonl",
			history: RoleCounts{User: 7, Assistant: 6, Tool: 2}, calls: 2, res: 2, compactions: 2,
			effective: "Suauatauua", effCalls: 1, effResults: 1,
			usage: RecordedUsage{Responses: 6, InputTokens: 186, OutputTokens: 70, CacheRead: 1330, CacheWrite: 100, LastContext: 330}},
		{name: "openclaw branched v3", path: "fixtures/pi-openclaw-branched.jsonl",
			history: RoleCounts{User: 6, Assistant: 5, Tool: 1}, calls: 1, res: 1,
			effective: "uatauuuua", effCalls: 1, effResults: 1,
			usage: RecordedUsage{Responses: 4, InputTokens: 11624, OutputTokens: 83, CacheRead: 44860, LastContext: 14240}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var path string
			if strings.HasPrefix(tc.path, "fixtures/") {
				path = filepath.Join("../../testdata", tc.path)
			} else {
				path = sampleFile(t, tc.path)
			}
			st, msgs := readTranscript(t, path, FormatUnknown)
			checkHistory(t, st, FormatPi, tc.history, tc.calls, tc.res, tc.compactions)
			if tc.effective != "" {
				if got := roleSeq(msgs); got != tc.effective {
					t.Errorf("effective = %s, want %s", got, tc.effective)
				}
			}
			_, calls, results := countRoles(msgs)
			if calls != tc.effCalls || results != tc.effResults {
				t.Errorf("effective calls/results = %d/%d, want %d/%d", calls, results, tc.effCalls, tc.effResults)
			}
			if st.Usage == nil || *st.Usage != tc.usage {
				t.Errorf("usage = %+v, want %+v", st.Usage, tc.usage)
			}
		})
	}
}

func TestPiV1LargeSample(t *testing.T) {
	st, msgs := readTranscript(t, sampleFile(t, "pi/pi-mono-v1-large-session-no-compaction.jsonl"), FormatUnknown)
	// No compaction: the whole file, less the 8 assistant turns that ended aborted (7) or in
	// error (1) with content, which pi does not send again.
	rc, _, _ := countRoles(msgs)
	if want := (RoleCounts{User: 88, Assistant: 431, Tool: 373}); rc != want {
		t.Errorf("effective roles = %+v, want %+v", rc, want)
	}
	if st.EffTokens >= st.Tokens {
		t.Errorf("effective %d tokens, history %d", st.EffTokens, st.Tokens)
	}
	if msgs[0].TextContent() != "/mode" || msgs[0].Line != 2 {
		t.Errorf("first = %+v", msgs[0])
	}
	for _, m := range msgs {
		for _, b := range m.Blocks {
			if b.Kind == BlockToolCall && (b.ID == "" || b.Name == "" || !strings.HasPrefix(b.Args, "{")) {
				t.Fatalf("line %d: tool call %+v", m.Line, b)
			}
			if b.Kind == BlockToolResult && b.ID == "" {
				t.Fatalf("line %d: tool result without id", m.Line)
			}
		}
	}
}

func TestPiV3SampleSecondCompaction(t *testing.T) {
	_, msgs := readTranscript(t, sampleFile(t, "pi/agent-sessions-v3-fixture-model-2-compactions.jsonl"), FormatUnknown)
	want := []struct {
		line int
		text string
	}{
		{9, piSummaryText("hello.py prints a fixture greeting.")}, // the 2nd compaction (line 9), not line 6
		{4, "Read hello.py and summarize what it prints without editing files."},
		{5, "hello.py prints a fixture greeting."},
		{7, "Add one concise follow-up sentence."},
		{8, "hello.py prints a fixture greeting."},
	}
	if len(msgs) != len(want) {
		t.Fatalf("effective = %s", roleSeq(msgs))
	}
	for i, w := range want {
		if msgs[i].Line != w.line || msgs[i].TextContent() != w.text {
			t.Errorf("message %d = line %d %q, want line %d %q", i, msgs[i].Line, msgs[i].TextContent(), w.line, w.text)
		}
	}
	if !msgs[0].Summary || !strings.HasPrefix(msgs[0].TextContent(), "The conversation history before this point was compacted into the following summary:\n\n<summary>\n") {
		t.Errorf("summary = %+v", msgs[0])
	}
	if u := msgs[2].Usage; u == nil || u.Input != 12 || u.Output != 7 {
		t.Errorf("usage = %+v", u)
	}
}

func TestPiV1TwoCompactions(t *testing.T) {
	_, msgs := readTranscript(t, "../../testdata/fixtures/pi-v1-two-compactions.jsonl", FormatUnknown)
	want := []struct {
		line int
		text string
	}{
		{14, piSummaryText("S2: main.go prints hello; a --name flag was added.")},
		{6, "Add a --name flag"}, // firstKeptEntryIndex 5 (the header is entry 0)
		{7, "Flag added."},
		// line 8, the first compaction, is inside the kept range but not re-emitted
		{9, "Write tests for the flag"},
		{10, ""},
		{11, ""},
		{13, "Tests written."},
		{15, "Run them"},
		{16, "Ran `go test ./...`\n```\nok  \tapp\t0.01s\n```"},
		{17, "All green."},
	}
	if len(msgs) != len(want) {
		t.Fatalf("effective = %s", roleSeq(msgs))
	}
	for i, w := range want {
		if msgs[i].Line != w.line || msgs[i].TextContent() != w.text {
			t.Errorf("message %d = line %d %q, want line %d %q", i, msgs[i].Line, msgs[i].TextContent(), w.line, w.text)
		}
	}
	a := msgs[4]
	if a.Blocks[0].Kind != BlockThinking || a.Blocks[0].Text != "Need a table test." || a.Blocks[0].Chars != len("Need a table test.") ||
		a.Blocks[1].ID != "toolu_2" || a.Blocks[1].Name != "write" || a.Blocks[1].Args != `{"path":"main_test.go","content":"package main"}` {
		t.Errorf("assistant = %+v", a)
	}
	r := msgs[5]
	if r.Role != RoleTool || r.Blocks[0].ID != "toolu_2" || r.Blocks[0].Name != "write" || r.Blocks[0].Text != "wrote main_test.go" {
		t.Errorf("tool result = %+v", r)
	}
}

func TestPiOpenClawBranched(t *testing.T) {
	_, msgs := readTranscript(t, "../../testdata/fixtures/pi-openclaw-branched.jsonl", FormatUnknown)
	var lines []int
	for _, m := range msgs {
		lines = append(lines, m.Line)
	}
	// The other branch (lines 8-9) and the aborted turn (line 13) are not in the context.
	if got, want := lines, []int{4, 5, 6, 7, 10, 11, 12, 14, 15}; !equalInts(got, want) {
		t.Fatalf("effective lines = %v, want %v", got, want)
	}
	if got := msgs[4].TextContent(); got != pi.BranchPrefix+"Der Benutzer bat um eine Zusammenfassung."+pi.BranchSuffix {
		t.Errorf("branch summary = %q", got)
	}
	if got := msgs[5].TextContent(); got != "Turn yielded." || msgs[5].Role != RoleUser {
		t.Errorf("custom_message = %+v", msgs[5])
	}
	th := msgs[1].Blocks[0]
	if th.Kind != BlockThinking || th.Chars != len([]rune("Der Benutzer möchte die Sessions sehen.")) {
		t.Errorf("thinking = %+v", th)
	}
	if msgs[1].Blocks[1].Args != `{"limit":10}` {
		t.Errorf("args = %q", msgs[1].Blocks[1].Args)
	}
}

// A line without id at the end (a foreign marker) becomes pi's leaf: pi would load an empty
// context (docs/formats.md, pi), and so does the reader.
func TestPiForeignLastLine(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fixtures/pi-openclaw-branched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, `{"compact":"summary"}`+"\n"...)
	res, err := scanLines(bytes.NewReader(data), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Format != FormatPi || res.Stats.EffMessages != 0 || res.Stats.Messages.Total() != 12 {
		t.Errorf("stats = %+v", res.Stats)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzPiReader(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/fixtures/pi-*.jsonl")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"session","version":2,"id":"s"}` + "\n" +
		`{"type":"message","id":"aaaaaaaa","parentId":"bbbbbbbb","message":{"role":"user","content":"x"}}` + "\n" +
		`{"type":"compaction","id":"bbbbbbbb","parentId":"aaaaaaaa","summary":"s","firstKeptEntryId":"aaaaaaaa"}` + "\n"))
	f.Add([]byte(`{"type":"session","id":"s"}` + "\n" + `{"type":"compaction","summary":"s","firstKeptEntryIndex":-3}` + "\n" + `7` + "\n"))
	f.Add([]byte(`{"type":"session","id":"s"}` + "\n\r " + `{"type":"message","message":{"role":"user","content":"x"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, data, FormatPi) })
}

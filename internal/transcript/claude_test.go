package transcript

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const samplesDir = "../../../shared/samples"

func sample(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(samplesDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("samples not available: %v", err)
	}
	return p
}

// TestClaudeSamples asserts counts checked by hand with jq (see docs/formats.md): typed user
// messages, tool-result messages, tool_use blocks, and assistant responses (the lines with one
// message.id are one message, also when tool results come between them). The v2.1.114 file's
// parentUuid chain from its newest record holds 36 tool_use blocks but only 34 tool_result
// blocks (docs/design.md §5); the context adds the blocks and results of the chain's responses that
// hang off it, as Claude Code does: 40 and 40 in 17 assistant messages (cmd/agents_test.go
// checks this against Claude Code itself).
func TestClaudeSamples(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		msgs                 RoleCounts
		calls, results       int
		effMsgs              int
		effCalls, effResults int
		responses            int
	}{
		{"claude-code/ccl-v2.1.114-worktrees-attachments.jsonl", RoleCounts{User: 5, Assistant: 17, Tool: 40}, 40, 40, 62, 40, 40, 17},
		{"claude-code/ccl-v2.1.17-queue-op-progress.jsonl", RoleCounts{User: 1, Assistant: 4, Tool: 3}, 3, 3, 8, 3, 3, 4},
		{"claude-code/ccl-v2.0.0-summary-title-lines-small.jsonl", RoleCounts{User: 3}, 0, 0, 3, 0, 0, 0},
		{"claude-code/ccl-file-history-snapshot-only-no-messages.jsonl", RoleCounts{}, 0, 0, 0, 0, 0, 0},
		{"claude-code/agentcmd-v2.0.28-16-summary-lines.jsonl", RoleCounts{User: 1, Assistant: 3, Tool: 5}, 5, 5, 9, 5, 5, 3},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs := scanFile(t, sample(t, tc.file), Options{})
			st := res.Stats
			calls, results := 0, 0
			for i := range msgs {
				calls += msgs[i].ToolCalls()
				results += msgs[i].ToolResults()
			}
			if st.Format != FormatClaude || st.BadLines != 0 {
				t.Errorf("format %s, bad lines %d", st.Format, st.BadLines)
			}
			if st.Messages != tc.msgs || st.ToolCalls != tc.calls || st.ToolResults != tc.results {
				t.Errorf("history: %+v calls %d results %d; want %+v %d %d", st.Messages, st.ToolCalls, st.ToolResults, tc.msgs, tc.calls, tc.results)
			}
			if len(msgs) != tc.effMsgs || st.EffMessages != tc.effMsgs || calls != tc.effCalls || results != tc.effResults {
				t.Errorf("effective: %d (stats %d) messages, %d calls, %d results; want %d, %d, %d", len(msgs), st.EffMessages, calls, results, tc.effMsgs, tc.effCalls, tc.effResults)
			}
			if int64(sumTokens(msgs)) != st.EffTokens {
				t.Errorf("effective tokens: messages %d, stats %d", sumTokens(msgs), st.EffTokens)
			}
			responses := 0
			if st.Usage != nil {
				responses = st.Usage.Responses
			}
			if responses != tc.responses {
				t.Errorf("recorded responses %d, want %d", responses, tc.responses)
			}
		})
	}
}

func TestClaudeCompactBoundary(t *testing.T) {
	res, msgs := scanFile(t, "../../testdata/fixtures/claude-compact-boundary.jsonl", Options{})
	st := res.Stats
	if st.Format != FormatClaude || st.Compactions != 1 || st.Sidechain != 1 {
		t.Fatalf("format %s compactions %d sidechain %d", st.Format, st.Compactions, st.Sidechain)
	}
	// History: 2 typed user turns (the task and the compact summary), 4 assistant responses
	// (msg_1 split over two lines counts once), 2 tool results.
	want := RoleCounts{User: 2, Assistant: 4, Tool: 2}
	if st.Messages != want {
		t.Errorf("messages %+v, want %+v", st.Messages, want)
	}
	// Usage: 4 responses; msg_1 counted once with its final output_tokens (42).
	if st.Usage == nil || st.Usage.Responses != 4 || st.Usage.OutputTokens != 42+30+60+12 {
		t.Errorf("usage %+v", st.Usage)
	}
	if st.Usage.LastContext != 3+9200+20 {
		t.Errorf("last context %d", st.Usage.LastContext)
	}
	// The context starts at the isCompactSummary message.
	if len(msgs) != 4 || !msgs[0].Summary || msgs[0].Line != 8 {
		t.Fatalf("effective context: %d messages, first %+v", len(msgs), msgs[0])
	}
	if msgs[1].ToolCalls() != 1 || msgs[2].ToolResults() != 1 || msgs[3].TextContent() != "Implemented Parse." {
		t.Errorf("context after summary: %+v", msgs[1:])
	}
	if int64(sumTokens(msgs)) != st.EffTokens || st.EffMessages != 4 {
		t.Errorf("effective tokens %d vs %d, messages %d", sumTokens(msgs), st.EffTokens, st.EffMessages)
	}
}

func TestClaudeSplitAssistantMerged(t *testing.T) {
	// Without the boundary, the split msg_1 lines come back as one message.
	_, msgs := scanFile(t, "../../testdata/fixtures/claude-compact-boundary.jsonl", Options{})
	_ = msgs
	f := "../../testdata/fixtures/claude-compact-boundary.jsonl"
	data := readString(t, f)
	lines := strings.Split(data, "\n")
	pre := strings.Join(lines[:6], "\n") + "\n"
	p := filepath.Join(t.TempDir(), "pre.jsonl")
	os.WriteFile(p, []byte(pre), 0o644)
	res, ms := scanFile(t, p, Options{})
	if len(ms) != 4 || len(ms[1].Blocks) != 2 || ms[1].Blocks[1].Kind != BlockToolCall || res.Stats.EffMessages != 4 {
		t.Fatalf("merged context: %d messages (%d effective)", len(ms), res.Stats.EffMessages)
	}
}

func sumTokens(ms []Message) int {
	n := 0
	for i := range ms {
		n += ms[i].Tokens()
	}
	return n
}

// TestClaudeSubagentFiles: in a subagent transcript every record is isSidechain:true, and the
// sidechain is the conversation. Each such file must read exactly as the same file with every
// record on the main chain (apart from Subagent), by every reading path (scanLines, Scan,
// load); a main session keeps its sidechain records apart.
func TestClaudeSubagentFiles(t *testing.T) {
	for _, tc := range []struct {
		file           string
		msgs           RoleCounts
		calls, results int
		effMsgs        int
		responses      int
		output         int64
		lastContext    int
	}{
		{"../../testdata/fixtures/claude-subagent.jsonl", RoleCounts{User: 1, Assistant: 2, Tool: 1}, 1, 1, 4, 2, 40 + 25, 4 + 80 + 1500},
		{"../../testdata/fixtures/claude-legacy-agent.jsonl", RoleCounts{User: 1, Assistant: 1}, 0, 0, 2, 1, 12, 3 + 900},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			data := readString(t, tc.file)
			if strings.Contains(data, `"isSidechain":false`) {
				t.Fatal("fixture has a main-chain record")
			}
			main := filepath.Join(t.TempDir(), "main.jsonl")
			os.WriteFile(main, []byte(strings.ReplaceAll(data, `"isSidechain":true`, `"isSidechain":false`)), 0o644)
			ref, refMsgs := scanFile(t, main, Options{})
			if ref.Stats.Subagent {
				t.Fatal("main-chain copy read as a subagent file")
			}
			for name, read := range readPaths() {
				st, msgs := read(t, tc.file)
				if st.Format != FormatClaude || !st.Subagent || st.Sidechain != 0 {
					t.Fatalf("%s: format %s subagent %v sidechain %d", name, st.Format, st.Subagent, st.Sidechain)
				}
				if st.Messages != tc.msgs || st.ToolCalls != tc.calls || st.ToolResults != tc.results || st.EffMessages != tc.effMsgs || len(msgs) != tc.effMsgs {
					t.Errorf("%s: history %+v calls %d results %d, effective %d (%d loaded)", name, st.Messages, st.ToolCalls, st.ToolResults, st.EffMessages, len(msgs))
				}
				if st.Usage == nil || st.Usage.Responses != tc.responses || st.Usage.OutputTokens != tc.output || st.Usage.LastContext != tc.lastContext {
					t.Errorf("%s: usage %+v", name, st.Usage)
				}
				if int64(sumTokens(msgs)) != st.EffTokens || st.Tokens == 0 {
					t.Errorf("%s: effective tokens: messages %d, stats %d (history %d)", name, sumTokens(msgs), st.EffTokens, st.Tokens)
				}
				want := *ref.Stats
				want.Subagent, want.Path, want.Bytes = true, st.Path, st.Bytes // "false" is a byte longer than "true"
				got := *st
				if !reflect.DeepEqual(statsView(&got), statsView(&want)) {
					t.Errorf("%s: stats differ from the main-chain copy:\n got %+v\nwant %+v", name, statsView(&got), statsView(&want))
				}
				if len(msgs) != len(refMsgs) {
					t.Fatalf("%s: %d messages, main-chain copy %d", name, len(msgs), len(refMsgs))
				}
				for i := range msgs {
					if msgs[i].Role != refMsgs[i].Role || msgs[i].TextContent() != refMsgs[i].TextContent() || msgs[i].Line != refMsgs[i].Line || msgs[i].Tokens() != refMsgs[i].Tokens() {
						t.Errorf("%s: message %d: %+v, main-chain copy %+v", name, i, msgs[i], refMsgs[i])
					}
				}
			}
		})
	}
}

// TestClaudeSidechainApartInMainSession: sidechain records before, between and after main-chain
// ones stay out of the history and the context of a main session.
func TestClaudeSidechainApartInMainSession(t *testing.T) {
	side := readString(t, "../../testdata/fixtures/claude-subagent.jsonl")
	mainData := readString(t, "../../testdata/fixtures/claude-compact-boundary.jsonl")
	only := filepath.Join(t.TempDir(), "only-main.jsonl")
	var mainLines []string
	for _, l := range strings.Split(strings.TrimSpace(mainData), "\n") {
		if !strings.Contains(l, `"isSidechain":true`) {
			mainLines = append(mainLines, l)
		}
	}
	os.WriteFile(only, []byte(strings.Join(mainLines, "\n")+"\n"), 0o644)
	ref, refMsgs := scanFile(t, only, Options{})
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	os.WriteFile(mixed, []byte(side+mainData+side), 0o644)
	sideMsgs := strings.Count(side, `"type":"user"`) + strings.Count(side, `"type":"assistant"`)
	for name, read := range readPaths() {
		st, msgs := read(t, mixed)
		if st.Subagent || st.Sidechain != 2*sideMsgs+1 {
			t.Errorf("%s: subagent %v, sidechain %d, want %d", name, st.Subagent, st.Sidechain, 2*sideMsgs+1)
		}
		if st.Messages != ref.Stats.Messages || st.Tokens != ref.Stats.Tokens || st.EffTokens != ref.Stats.EffTokens || len(msgs) != len(refMsgs) {
			t.Errorf("%s: history %+v tokens %d effective %d (%d msgs); main only: %+v %d %d (%d)", name, st.Messages, st.Tokens, st.EffTokens, len(msgs),
				ref.Stats.Messages, ref.Stats.Tokens, ref.Stats.EffTokens, len(refMsgs))
		}
	}
}

// TestClaudeSubagentSamples reads the real subagent and legacy flat agent files. Counts checked
// with jq: the subagent file has 1 typed user message, 24 tool_use blocks and 24 tool-result
// records, 21 assistant responses (consecutive lines with one message.id; one id comes back
// after a tool result); the parentUuid chain from its newest record holds 42 messages with 22
// calls and 20 results (parallel results hang off the first line of their response).
func TestClaudeSubagentSamples(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		msgs                 RoleCounts
		calls, results       int
		effMsgs              int
		effCalls, effResults int
	}{
		// The parallel blocks and results that hang off the chain are put back, as in main
		// sessions: all 24 calls and results, 20 responses.
		{"claude-code/ccl-v2.1.114-subagent-agent-a4ca7529.jsonl", RoleCounts{User: 1, Assistant: 20, Tool: 24}, 24, 24, 45, 24, 24},
		{"claude-code/ccl-v2.0.37-legacy-flat-agent-1509e86b.jsonl", RoleCounts{User: 1, Assistant: 1}, 0, 0, 2, 0, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := sample(t, tc.file)
			for name, read := range readPaths() {
				st, msgs := read(t, p)
				calls, results := 0, 0
				for i := range msgs {
					calls += msgs[i].ToolCalls()
					results += msgs[i].ToolResults()
				}
				if st.Format != FormatClaude || !st.Subagent || st.BadLines != 0 {
					t.Errorf("%s: format %s subagent %v bad %d", name, st.Format, st.Subagent, st.BadLines)
				}
				if st.Messages != tc.msgs || st.ToolCalls != tc.calls || st.ToolResults != tc.results {
					t.Errorf("%s: history %+v calls %d results %d", name, st.Messages, st.ToolCalls, st.ToolResults)
				}
				if len(msgs) != tc.effMsgs || st.EffMessages != tc.effMsgs || calls != tc.effCalls || results != tc.effResults {
					t.Errorf("%s: effective %d (stats %d) messages, %d calls, %d results", name, len(msgs), st.EffMessages, calls, results)
				}
				if int64(sumTokens(msgs)) != st.EffTokens || st.Usage == nil || st.Usage.LastContext == 0 {
					t.Errorf("%s: effective tokens %d vs %d, usage %+v", name, sumTokens(msgs), st.EffTokens, st.Usage)
				}
			}
		})
	}
}

// readPaths are the ways a file is read: scanLines then re-read (readFile), the pipeline, and load
// (which parses messages while scanning).
func readPaths() map[string]func(t *testing.T, path string) (*Stats, []Message) {
	return map[string]func(t *testing.T, path string) (*Stats, []Message){
		"ReadFile": func(t *testing.T, path string) (*Stats, []Message) {
			res, msgs := scanFile(t, path, Options{})
			return res.Stats, msgs
		},
		"ScanParallel": func(t *testing.T, path string) (*Stats, []Message) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			res, err := Scan(f, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := res.Messages(f)
			if err != nil {
				t.Fatal(err)
			}
			return res.Stats, msgs
		},
		"LoadFile": func(t *testing.T, path string) (*Stats, []Message) {
			res, msgs, err := LoadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return res.Stats, msgs
		},
	}
}

// statsView is the exported part of Stats.
func statsView(st *Stats) Stats {
	return st.WithoutScanState()
}

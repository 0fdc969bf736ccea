package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const samplesDir = "../../shared/samples"

func sample(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(samplesDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("samples not available: %v", err)
	}
	return p
}

// TestClaudeSamples asserts counts checked by hand with jq (see README "Formats"): typed user
// messages, tool-result messages, tool_use blocks, and assistant responses (the lines with one
// message.id are one message, also when tool results come between them). The v2.1.114 file's
// parentUuid chain from its newest record holds 36 tool_use blocks but only 34 tool_result
// blocks (design.md §5); the context adds the blocks and results of the chain's responses that
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
	res, msgs := scanFile(t, "../testdata/fixtures/claude-compact-boundary.jsonl", Options{})
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
	_, msgs := scanFile(t, "../testdata/fixtures/claude-compact-boundary.jsonl", Options{})
	_ = msgs
	f := "../testdata/fixtures/claude-compact-boundary.jsonl"
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

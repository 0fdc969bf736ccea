package qwen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestQwenFiles: the Qwen Code fixtures: a file the agent wrote offline (Qwen Code 0.24.4: a tool
// call, then two resumed turns) and small hand-written ones for the records the runs do not
// produce (compression records, fragments, branches, non-conversation records).
func TestQwenFiles(t *testing.T) {
	for _, tc := range []struct {
		path        string
		history     transcript.RoleCounts
		calls, res  int
		compactions int
		effective   string
		summary     bool // the context opens with a summary
		usage       transcript.RecordedUsage
	}{
		{path: "qwen-0.24-tool-resumed.jsonl", history: transcript.RoleCounts{User: 3, Assistant: 4, Tool: 1},
			calls: 1, res: 1, effective: "uatauaua",
			usage: transcript.RecordedUsage{Responses: 4, InputTokens: 400, OutputTokens: 20, LastContext: 100}},
		// Qwen Code compacted this session itself (told by the fake that its context was nearly
		// full): the summary, its "Got it.", the file it had read and its open call lead the
		// context; the call's result is before the compression record, so not in the context (the
		// call is answered by ctxc load's placeholder, and Qwen Code sends a result for it too).
		{path: "qwen-0.24-own-compression.jsonl", history: transcript.RoleCounts{User: 4, Assistant: 4, Tool: 1},
			calls: 1, res: 1, compactions: 1, effective: "Sauaauaua", summary: true,
			usage: transcript.RecordedUsage{Responses: 4, InputTokens: 900300, OutputTokens: 20, LastContext: 100}},
		// The leaf is r10 (r11 is not a conversation record); the path leaves the abandoned
		// branch r6–r7 out; the compression replaces r1–r8; r10's two records are one message.
		{path: "qwen-branch-compression.jsonl", history: transcript.RoleCounts{User: 4, Assistant: 4, Tool: 1},
			calls: 1, res: 1, compactions: 1, effective: "Saua", summary: true,
			usage: transcript.RecordedUsage{Responses: 3, InputTokens: 610, OutputTokens: 12, CacheRead: 100, LastContext: 60}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, msgs, err := transcript.LoadFile(filepath.Join("../../../testdata/fixtures", tc.path), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if st.Format != transcript.FormatQwen || st.Messages != tc.history || st.ToolCalls != tc.calls ||
				st.ToolResults != tc.res || st.Compactions != tc.compactions {
				t.Errorf("got %s %+v calls/results %d/%d compactions %d", st.Format, st.Messages, st.ToolCalls, st.ToolResults, st.Compactions)
			}
			if len(msgs) != st.EffMessages {
				t.Errorf("%d effective messages, stats say %d", len(msgs), st.EffMessages)
			}
			if got := roleSeq(msgs); got != tc.effective {
				t.Errorf("effective = %s, want %s", got, tc.effective)
			}
			if len(msgs) > 0 && msgs[0].Summary != tc.summary {
				t.Errorf("first message Summary = %v, want %v", msgs[0].Summary, tc.summary)
			}
			var usage transcript.RecordedUsage
			if st.Usage != nil {
				usage = *st.Usage
			}
			if usage != tc.usage {
				t.Errorf("usage = %+v, want %+v", usage, tc.usage)
			}
		})
	}
}

// roleSeq is the effective context's roles, a letter each (S for a summary).
func roleSeq(msgs []transcript.Message) string {
	var b strings.Builder
	for i := range msgs {
		m := &msgs[i]
		switch {
		case m.Summary:
			b.WriteByte('S')
		case m.Role == transcript.RoleUser:
			b.WriteByte('u')
		case m.Role == transcript.RoleAssistant:
			b.WriteByte('a')
		case m.Role == transcript.RoleTool:
			b.WriteByte('t')
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

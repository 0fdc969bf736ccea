package compact

import (
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// HeadWatch's guess agrees with PlanZones on the usual shapes of a context.
func TestHeadWatchAgreesWithPlanZones(t *testing.T) {
	sys := transcript.Message{Role: transcript.RoleSystem, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "s"}}}
	user := transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "u"}}}
	call := transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Kind: transcript.BlockToolCall, ID: "c"}}}
	result := transcript.Message{Role: transcript.RoleTool, Blocks: []transcript.Block{{Kind: transcript.BlockToolResult, ID: "c"}}}
	asst := transcript.Message{Role: transcript.RoleAssistant, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "a"}}}
	summary := transcript.Message{Role: transcript.RoleUser, Summary: true, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: "sum"}}}
	for _, tc := range []struct {
		name string
		ms   []transcript.Message
		keep int
	}{
		{"system, task, work", []transcript.Message{sys, user, call, result, asst, user, asst}, 1},
		{"task first", []transcript.Message{user, asst, user, call, result, asst}, 1},
		{"two user turns kept", []transcript.Message{user, asst, user, call, result, asst, user, asst}, 2},
		{"results right after the task", []transcript.Message{user, result, result, asst, call, result}, 1},
		{"after a summary", []transcript.Message{sys, user, summary, asst, user, asst}, 1},
		{"summary first", []transcript.Message{summary, user, asst, call, result}, 1},
	} {
		lines := make([]jsonl.Line, len(tc.ms))
		got := int64(-1)
		w := NewHeadWatch(ZoneOptions{KeepHead: tc.keep}, func(off int64) {
			if got >= 0 {
				t.Errorf("%s: found twice", tc.name)
			}
			got = off
		})
		for i := range tc.ms {
			lines[i] = jsonl.Line{Num: i + 1, Offset: int64(100 * i)}
			w.Observe(&tc.ms[i], &lines[i])
		}
		z := PlanZones(tc.ms, ZoneOptions{KeepHead: tc.keep, KeepTail: 1})
		if want := int64(100 * z.HeadEnd); got != want {
			t.Errorf("%s: guessed offset %d, PlanZones' head ends at %d", tc.name, got, want)
		}
	}
}

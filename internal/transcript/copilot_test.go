package transcript

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestCopilotDroidDetection: the agents' lines are told from Claude Code's, Codex's and pi's.
func TestCopilotDroidDetection(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format
	}{
		{`{"type":"session.start","data":{"sessionId":"s"},"id":"e1","timestamp":"t","parentId":null}`, FormatCopilot},
		{`{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"t","parentId":"e1"}`, FormatCopilot},
		{`{"type":"session_start","id":"s","version":2,"cwd":"/w"}`, FormatDroid},
		{`{"type":"compaction_state","id":"c","summaryText":"s"}`, FormatDroid},
		{`{"type":"session","id":"s","version":3}`, FormatPi},
		{`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"hi"}}`, FormatClaude},
	} {
		doc := gjson.Parse(tc.line)
		got, strong, err := detectLine(doc)
		if err != nil || got != tc.want || !strong {
			t.Errorf("%s: got %s strong=%v err=%v, want %s", tc.line, got, strong, err, tc.want)
		}
	}
}

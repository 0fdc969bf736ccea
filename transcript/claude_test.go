package transcript

import (
	"os"
	"path/filepath"
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

func TestClaudeSamples(t *testing.T) {
	for _, tc := range []struct {
		file                 string
		msgs                 RoleCounts
		calls, results       int
		effMsgs              int
		effCalls, effResults int
	}{
		{file: "claude-code/ccl-v2.1.114-worktrees-attachments.jsonl"},
		{file: "claude-code/ccl-v2.1.17-queue-op-progress.jsonl"},
		{file: "claude-code/ccl-v2.0.0-summary-title-lines-small.jsonl"},
		{file: "claude-code/ccl-file-history-snapshot-only-no-messages.jsonl"},
		{file: "claude-code/agentcmd-v2.0.28-16-summary-lines.jsonl"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, msgs := scanFile(t, sample(t, tc.file), Options{})
			st := res.Stats
			calls, results := 0, 0
			for i := range msgs {
				calls += msgs[i].ToolCalls()
				results += msgs[i].ToolResults()
			}
			t.Logf("format=%s msgs=%+v calls=%d results=%d eff=%d/%d effCalls=%d effResults=%d tokens=%d eff=%d usage=%+v", st.Format, st.Messages, st.ToolCalls, st.ToolResults, st.EffMessages, len(msgs), calls, results, st.Tokens, st.EffTokens, st.Usage)
		})
	}
}

package usage

import (
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestOpencodeResponses: each step of an opencode assistant message is one response, its usage
// in its step-finish part, of the message's model, at the time the message was created (the
// session opencode 1.18.33 wrote offline: a tool call, then its answer).
func TestOpencodeResponses(t *testing.T) {
	rs, err := File("../../testdata/fixtures/opencode-1.18-tool.jsonl", transcript.FormatOpencode)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d responses, want 2: %+v", len(rs), rs)
	}
	for _, r := range rs {
		if r.Model != "fake-model" || r.Input != 100 || r.Output != 5 || r.Line < 2 || r.Time.Before(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("response %+v", r)
		}
	}
}

// TestOpencodeSession: the session's id and project folder, from its messages' info.
func TestOpencodeSession(t *testing.T) {
	s, err := FileSession("../../testdata/fixtures/opencode-1.18-tool.jsonl", transcript.FormatOpencode)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "ses_ddda26219ffeuyiU5usHydCG74" || s.Project != "/tmp/oc-explore/proj" || s.Start.IsZero() {
		t.Errorf("session %+v", s)
	}
}

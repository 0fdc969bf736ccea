package agentcheck

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/transcript"
)

// snapshot copies an agent's session file as it is now (a resume appends to it).
func snapshot(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := t.TempDir() + "/session.jsonl"
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// counts is what a reader found in a file: the format, user, assistant and tool messages of the
// history, tool calls, compactions and the effective context's messages.
type counts struct {
	format                       transcript.Format
	user, assistant, tool, calls int
	compactions, effective       int
}

func scanCounts(t *testing.T, path string) counts {
	t.Helper()
	res, err := transcript.ScanFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.BadLines != 0 {
		t.Errorf("%s: %d bad lines", path, st.BadLines)
	}
	return counts{format: st.Format, user: st.Messages.User, assistant: st.Messages.Assistant, tool: st.Messages.Tool,
		calls: st.ToolCalls, compactions: st.Compactions, effective: st.EffMessages}
}

// agreeOnResume checks that the context ctxc loads from file is the one the agent sent
// (request: its resume request with Prompt as the new prompt).
func agreeOnResume(t *testing.T, agent, file string, request []byte) {
	t.Helper()
	if request == nil {
		t.Fatal("the agent sent no request")
	}
	_, msgs, err := transcript.LoadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := msglist.WriteMessages(&out, msgs, msglist.AsOpenAI); err != nil {
		t.Fatal(err)
	}
	want, err := FromLoad(agent, out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := FromRequest(agent, request)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(agent, want, got); d != "" {
		t.Fatalf("%s's resume request and ctxc load differ: %s", agent, d)
	}
	if len(want) == 0 {
		t.Fatal("ctxc loaded nothing")
	}
}

// appendCompaction compacts file in place with the format's writer, as ctxc compact does: the
// first user turn is the head, the last keep messages the tail, the rest summarized.
func appendCompaction(t *testing.T, file string, keep int, summary string) {
	t.Helper()
	res, msgs, err := transcript.LoadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) < keep+2 {
		t.Fatalf("%d messages: too few to compact", len(msgs))
	}
	src, err := transcript.OpenSource(file, res)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cut := len(msgs) - keep
	c := &transcript.Compaction{Summary: summary, Head: msgs[:1], Middle: msgs[1:cut], Tail: msgs[cut:], Now: time.Now()}
	w, err := transcript.WriterFor(res.Stats.Format, "").Append(src, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(w.Data); err != nil {
		t.Fatal(err)
	}
	_, after, err := transcript.LoadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != w.Messages || !after[0].Summary || !strings.Contains(after[0].TextContent(), summary) {
		t.Fatalf("after the compaction ctxc loads %d messages (want %d, the summary first)", len(after), w.Messages)
	}
}

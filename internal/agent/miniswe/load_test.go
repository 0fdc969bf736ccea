package miniswe_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

const sqlfluffRun = "../../../testdata/miniswe/sqlfluff__sqlfluff-2419/sqlfluff__sqlfluff-2419.traj.json"

// keptMessage is a message of a trajectory as mini-swe-agent keeps it.
type keptMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Calls   []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	CallID string `json:"tool_call_id"`
	Extra  struct {
		Response struct {
			Usage struct {
				Prompt     int64 `json:"prompt_tokens"`
				Completion int64 `json:"completion_tokens"`
				Details    struct {
					Cached int64 `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		} `json:"response"`
	} `json:"extra"`
}

// TestMiniSWETrajectory: a trajectory mini-swe-agent 2.2.7 wrote (testdata/miniswe, public), read
// through its export: its messages counted, each answer's usage recorded, and the context what
// mini-swe-agent sends its model (_prepare_messages_for_api): every message it keeps but the
// run's exit, each one's text, tool calls and result's call id as it keeps them.
func TestMiniSWETrajectory(t *testing.T) {
	res, msgs, err := transcript.LoadFile(sqlfluffRun, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != transcript.FormatMiniSWE || st.Messages.System != 1 || st.Messages.User != 1 || st.Messages.Assistant != 48 ||
		st.Messages.Tool != 47 || st.ToolCalls != 48 || st.ToolResults != 47 || st.BadLines != 0 || st.EffMessages != 97 || len(msgs) != 97 {
		t.Fatalf("%+v, %d messages loaded", st, len(msgs))
	}
	// The 48 answers' usage: 467091 prompt tokens, 450176 of them cached; the last prompt 16562.
	if u := st.Usage; u == nil || u.Responses != 48 || u.InputTokens != 467091-450176 || u.CacheRead != 450176 ||
		u.OutputTokens != 4976 || u.LastContext != 16562 {
		t.Errorf("usage %+v", st.Usage)
	}
	data, err := os.ReadFile(sqlfluffRun)
	if err != nil {
		t.Fatal(err)
	}
	var traj struct {
		Messages []keptMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &traj); err != nil {
		t.Fatal(err)
	}
	var sent []keptMessage
	for _, m := range traj.Messages {
		if m.Role != "exit" {
			sent = append(sent, m)
		}
	}
	if len(sent) != len(msgs) {
		t.Fatalf("%d messages loaded, %d sent", len(msgs), len(sent))
	}
	for i, want := range sent {
		if got := describe(&msgs[i]); got != describeKept(want) {
			t.Errorf("message %d:\n got %q\nsent %q", i, got, describeKept(want))
		}
	}
}

// describe is a loaded message as role, text, calls and result ids.
func describe(m *transcript.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	for _, bl := range m.Blocks {
		switch bl.Kind {
		case transcript.BlockText:
			b.WriteString("|text:" + bl.Text)
		case transcript.BlockToolResult:
			b.WriteString("|result:" + bl.ID + ":" + bl.Text)
		case transcript.BlockToolCall:
			b.WriteString("|call:" + bl.ID + ":" + bl.Name + ":" + bl.Args)
		default:
			b.WriteString("|" + bl.Kind.String())
		}
	}
	return b.String()
}

// describeKept is a message mini-swe-agent sends, as describe words a loaded one.
func describeKept(m keptMessage) string {
	var b strings.Builder
	b.WriteString(m.Role)
	if m.Role == "tool" {
		return b.String() + "|result:" + m.CallID + ":" + m.Content
	}
	if m.Content != "" {
		b.WriteString("|text:" + m.Content)
	}
	for _, c := range m.Calls {
		b.WriteString("|call:" + c.ID + ":" + c.Function.Name + ":" + c.Function.Arguments)
	}
	return b.String()
}

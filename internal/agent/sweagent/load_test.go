package sweagent_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

const (
	gpt4Run    = "../../../testdata/sweagent/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj"
	replayRun  = "../../../testdata/sweagent/replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj"
	elidingRun = "../../../testdata/sweagent/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj"
)

// TestSWEAgentTrajectories: trajectories SWE-agent wrote (testdata/sweagent, public), read
// through their export: every history message counted, the run's model statistics as the
// recorded usage, and the context SWE-agent's model is sent.
func TestSWEAgentTrajectories(t *testing.T) {
	cases := []struct {
		path                                      string
		system, user, assistant, tool, calls, eff int
		sent, received, responses                 int64
	}{
		// SWE-agent 0.x, a gpt4 run: thought and action in the assistant's text, observations
		// as user messages, one demonstration; 5 calls, 52861 tokens sent.
		{gpt4Run, 1, 6, 5, 0, 0, 12, 52861, 326, 5},
		// SWE-agent 1.0, function calling: each action a tool call, each observation its result.
		{replayRun, 1, 1, 11, 11, 11, 24, 0, 0, 0},
		// Its run's agent elides all but the last 5 observations (last_n_observations).
		{elidingRun, 1, 1, 13, 13, 13, 28, 0, 0, 0},
	}
	for _, c := range cases {
		res, msgs, err := transcript.LoadFile(c.path, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		st := res.Stats
		if st.Format != transcript.FormatSWEAgent || st.Messages.System != c.system || st.Messages.User != c.user ||
			st.Messages.Assistant != c.assistant || st.Messages.Tool != c.tool || st.ToolCalls != c.calls ||
			st.ToolResults != c.calls || st.Compactions != 0 || st.BadLines != 0 || st.EffMessages != c.eff || len(msgs) != c.eff {
			t.Errorf("%s: %+v, %d messages loaded", c.path, st, len(msgs))
			continue
		}
		var sent, received, responses int64
		if u := st.Usage; u != nil {
			sent, received, responses = u.InputTokens, u.OutputTokens, int64(u.Responses)
		}
		if sent != c.sent || received != c.received || responses != c.responses {
			t.Errorf("%s: usage %d sent, %d received, %d responses; want %d, %d, %d", c.path, sent, received, responses,
				c.sent, c.received, c.responses)
		}
	}
}

// historyItem is a message of a trajectory's history as SWE-agent writes it.
type historyItem struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	Calls   []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	CallIDs []string `json:"tool_call_ids"`
}

// TestSWEAgentSendsWhatItRecorded: SWE-agent 1.0 recorded, with each step, the messages its model
// was sent (the step's "messages", after its history processors: here last_n_observations with
// n 5). ctxc's context of the trajectory is the last step's messages: each one's role, text,
// tool calls (id, name, arguments) and result's call id, the elided observations' text included.
func TestSWEAgentSendsWhatItRecorded(t *testing.T) {
	data, err := os.ReadFile(elidingRun)
	if err != nil {
		t.Fatal(err)
	}
	var traj struct {
		Trajectory []struct {
			Messages []historyItem `json:"messages"`
		} `json:"trajectory"`
	}
	if err := json.Unmarshal(data, &traj); err != nil {
		t.Fatal(err)
	}
	sent := traj.Trajectory[len(traj.Trajectory)-1].Messages
	_, msgs, err := transcript.LoadFile(elidingRun, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(sent) {
		t.Fatalf("%d messages loaded, SWE-agent sent %d", len(msgs), len(sent))
	}
	elided := 0
	for i, want := range sent {
		if strings.HasPrefix(want.Content, "Old environment output: (") {
			elided++
		}
		if got := describe(&msgs[i]); got != describeItem(want) {
			t.Errorf("message %d:\n got %q\nsent %q", i, got, describeItem(want))
		}
	}
	if elided != 8 {
		t.Errorf("%d elided observations sent, want 8", elided)
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

// describeItem is a message SWE-agent sent, as describe words a loaded one.
func describeItem(h historyItem) string {
	var b strings.Builder
	b.WriteString(h.Role)
	if h.Role == "tool" {
		b.WriteString("|result:" + h.CallIDs[0] + ":" + h.Content)
		return b.String()
	}
	if h.Content != "" {
		b.WriteString("|text:" + h.Content)
	}
	for _, c := range h.Calls {
		b.WriteString("|call:" + c.ID + ":" + c.Function.Name + ":" + c.Function.Arguments)
	}
	return b.String()
}

package openhands_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestOpenhandsConversations: conversations the OpenHands SDK wrote (testdata/openhands, public),
// read through their base_state.json: every event's message counted, and the context the SDK's
// View and events_to_messages make of them, texts included (a terminal's output framed by its
// metadata as TerminalObservation.to_llm_content frames it).
func TestOpenhandsConversations(t *testing.T) {
	cases := []struct {
		path                                      string
		system, user, assistant, tool, calls, eff int
		texts                                     map[int]string // context message: its text
	}{
		{"../../../testdata/openhands/conversations/cd94562403b9487ebdd4018e3f531dfd/base_state.json", 1, 2, 3, 2, 2, 8,
			map[int]string{
				1: "Use the terminal tool to run `pwd` and write the output to tool_output.txt. Reply with a short confirmation once done.",
				3: "\n[The command completed with exit code 0.]\n[Current working directory: /workspace/project/software-agent-sdk]\n" +
					"[Python interpreter: /workspace/project/software-agent-sdk/.venv/bin/python]\n[Command finished with exit code 0]",
				5: "The current directory has been written to tool_output.txt.",
				7: "I executed the `pwd` command to get the current directory and saved the output to a file named `tool_output.txt`.",
			}},
		{"../../../testdata/openhands/persistence/00000000000000000000000000000203/base_state.json", 1, 2, 2, 0, 0, 5, nil},
	}
	for _, c := range cases {
		res, msgs, err := transcript.LoadFile(c.path, transcript.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		st := res.Stats
		if st.Format != transcript.FormatOpenhands || st.Messages.System != c.system || st.Messages.User != c.user ||
			st.Messages.Assistant != c.assistant || st.Messages.Tool != c.tool || st.ToolCalls != c.calls ||
			st.ToolResults != c.calls || st.Compactions != 0 || st.BadLines != 0 || st.EffMessages != c.eff || len(msgs) != c.eff {
			t.Errorf("%s: %+v, %d messages loaded", c.path, st, len(msgs))
			continue
		}
		for i, want := range c.texts {
			if got := messageText(&msgs[i]); got != want {
				t.Errorf("%s: message %d: %q, want %q", c.path, i, got, want)
			}
		}
	}
}

// messageText joins a message's text and tool-result blocks.
func messageText(m *transcript.Message) string {
	var b strings.Builder
	for _, bl := range m.Blocks {
		if bl.Kind == transcript.BlockText || bl.Kind == transcript.BlockToolResult {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// TestOpenhandsRules: the SDK's rules on events it writes: the actions of one response are one
// message; a Condensation forgets events and puts its summary at its offset; a rejected action,
// an agent error and an observation with is_error are sent as the SDK words them; events that
// are no message are left out.
func TestOpenhandsRules(t *testing.T) {
	lines := []string{
		`{"type":"openhands","sessionId":"c1","events":9}`,
		`{"id":"e0","kind":"SystemPromptEvent","source":"agent","system_prompt":{"type":"text","text":"sys"}}`,
		`{"id":"e1","kind":"MessageEvent","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"task"}]},"extended_content":[{"type":"text","text":" +ctx"}]}`,
		`{"id":"e2","kind":"ActionEvent","thought":[{"type":"text","text":"two calls"}],"tool_call":{"id":"a","name":"terminal","arguments":"{\"command\":\"ls\"}"},"tool_name":"terminal","llm_response_id":"r1"}`,
		`{"id":"s","kind":"ConversationStateUpdateEvent","key":"execution_status","value":"running"}`,
		`{"id":"e3","kind":"ActionEvent","thought":[],"tool_call":{"id":"b","name":"file_editor","arguments":"{}"},"tool_name":"file_editor","llm_response_id":"r1"}`,
		`{"id":"e4","kind":"ObservationEvent","tool_call_id":"a","tool_name":"terminal","observation":{"kind":"FileEditorObservation","is_error":true,"content":[{"type":"text","text":"boom"}]}}`,
		`{"id":"e5","kind":"UserRejectObservation","tool_call_id":"b","tool_name":"file_editor","rejection_reason":"no"}`,
		`{"id":"e6","kind":"Condensation","forgotten_event_ids":["e1","e2","e3","e4","e5"],"summary":"SUM","summary_offset":1}`,
		`{"id":"e7","kind":"AgentErrorEvent","tool_call_id":"c","tool_name":"x","error":"bad call"}`,
	}
	data := []byte(strings.Join(lines, "\n") + "\n")
	res, err := transcript.Scan(bytes.NewReader(data), "t", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != transcript.FormatOpenhands || st.Messages.Assistant != 1 || st.ToolCalls != 2 || st.ToolResults != 3 || st.Compactions != 1 {
		t.Errorf("stats %+v", st)
	}
	msgs, err := res.Messages(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range msgs {
		got = append(got, string(msgs[i].Role)+":"+messageText(&msgs[i]))
	}
	want := []string{"system:sys", "user:SUM", "tool:bad call"}
	if strings.Join(got, "|") != strings.Join(want, "|") || !msgs[1].Summary {
		t.Errorf("context %q, want %q", got, want)
	}

	// Before the condensation: the whole conversation, the two actions one message.
	res, err = transcript.Scan(bytes.NewReader(data[:bytes.Index(data, []byte(`{"id":"e6"`))]), "t", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ = res.Messages(bytes.NewReader(data))
	got = got[:0]
	for i := range msgs {
		got = append(got, string(msgs[i].Role)+":"+messageText(&msgs[i]))
	}
	want = []string{"system:sys", "user:task +ctx", "assistant:two calls", "tool:[An error occurred during execution.]\nboom",
		"tool:Action rejected: no"}
	if strings.Join(got, "|") != strings.Join(want, "|") || msgs[2].ToolCalls() != 2 || res.Stats.EffMessages != 5 {
		t.Errorf("context %q (%d calls, %d effective), want %q", got, msgs[2].ToolCalls(), res.Stats.EffMessages, want)
	}
}

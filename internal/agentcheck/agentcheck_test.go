package agentcheck

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompare: the reduction and the comparison accept what an agent adds on its own and
// nothing else.
func TestCompare(t *testing.T) {
	claudeReq := `{"system":"x","messages":[
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nhooks</system-reminder>"},{"type":"text","text":"fix main.go"}]},
		{"role":"system","content":"env"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"SIG"},{"type":"tool_use","id":"t1","name":"Read","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"text","text":"Tool loaded."}]},
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nenv</system-reminder>"},{"type":"text","text":"Reply with OK."}]}]}`
	load := `{"role":"user","content":[{"type":"text","text":"fix main.go"}]}
{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"SIG"},{"type":"tool_use","id":"t1","name":"Read","input":{}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}
`
	got, err := FromRequest(ClaudeCode, []byte(claudeReq))
	if err != nil {
		t.Fatal(err)
	}
	want, err := FromLoad(ClaudeCode, []byte(load))
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare(ClaudeCode, want, got); d != "" {
		t.Fatalf("should agree: %s", d)
	}
	// A missing result, a different signature, an extra turn: each is a difference.
	for _, bad := range []string{
		strings.Replace(load, `{"type":"tool_result","tool_use_id":"t1","content":"ok"}`, `{"type":"text","text":"no"}`, 1),
		strings.Replace(load, `SIG`, `OTHER`, 1),
		load + `{"role":"assistant","content":"more"}` + "\n",
	} {
		w, _ := FromLoad(ClaudeCode, []byte(bad))
		if Compare(ClaudeCode, w, got) == "" {
			t.Errorf("should differ:\n%s", bad)
		}
	}
	// Codex: leading base instructions and trailing environment context are the agent's.
	codexReq := `{"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},
		{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"aborted"},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"Reply with OK."}]}]}`
	got, _ = FromRequest(Codex, []byte(codexReq))
	want, _ = FromLoad(Codex, []byte(`{"role":"user","content":"hi"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shell","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c1","content":"aborted"}
`))
	if d := Compare(Codex, want, got); d != "" {
		t.Fatalf("codex should agree: %s", d)
	}
	if d := Compare(Codex, want[:2], got); d == "" {
		t.Error("an unanswered call should differ")
	}
}

// TestCompareResultText: a tool result is compared by its text, not only its id: ctxc's
// placeholder where the agent sends the real output is a difference, in every dialect. A message
// Codex sends between a call and its output is expected after the output, where ctxc load puts
// it for the chat dialects, and its text is compared there.
func TestCompareResultText(t *testing.T) {
	codexReq := `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"list"}]},
		{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"},
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>never ask</permissions instructions>"}]},
		{"type":"function_call_output","call_id":"c1","output":"main.go\ngo.mod"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Two files."}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"Reply with OK."}]}]}`
	load := `{"role":"user","content":"list"}
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shell","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"c1","content":"main.go\ngo.mod"}
{"role":"developer","content":"<permissions instructions>never ask</permissions instructions>"}
{"role":"assistant","content":"Two files."}
`
	got, _ := FromRequest(Codex, []byte(codexReq))
	want, _ := FromLoad(Codex, []byte(load))
	if d := Compare(Codex, want, got); d != "" {
		t.Fatalf("codex should agree: %s", d)
	}
	for _, bad := range []string{
		strings.Replace(load, `"content":"main.go\ngo.mod"`, `"content":"[ctxc] No result was recorded for this tool call (the session was interrupted or the result is not part of the context)."`, 1),
		strings.Replace(load, `never ask`, `always ask`, 1),
	} {
		w, _ := FromLoad(Codex, []byte(bad))
		if Compare(Codex, w, got) == "" {
			t.Errorf("codex should differ:\n%s", bad)
		}
	}

	claudeReq := `{"messages":[{"role":"user","content":"read it"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"line 1"}]}]},
		{"role":"user","content":"Reply with OK."}]}`
	claudeLoad := `{"role":"user","content":"read it"}
{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"line 1"}]}
`
	got, _ = FromRequest(ClaudeCode, []byte(claudeReq))
	want, _ = FromLoad(ClaudeCode, []byte(claudeLoad))
	if d := Compare(ClaudeCode, want, got); d != "" {
		t.Fatalf("claude should agree: %s", d)
	}
	want, _ = FromLoad(ClaudeCode, []byte(strings.Replace(claudeLoad, `"content":"line 1"`, `"content":"line 2"`, 1)))
	if Compare(ClaudeCode, want, got) == "" {
		t.Error("claude: another result text should differ")
	}

	piReq := `{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"run"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"b1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"b1","content":"ok"},{"role":"user","content":"Reply with OK."}]}`
	piLoad := `{"role":"user","content":"run"}
{"role":"assistant","content":null,"tool_calls":[{"id":"b1","type":"function","function":{"name":"bash","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"b1","content":"ok"}
`
	got, _ = FromRequest(Pi, []byte(piReq))
	want, _ = FromLoad(Pi, []byte(piLoad))
	if d := Compare(Pi, want, got); d != "" {
		t.Fatalf("pi should agree: %s", d)
	}
	want, _ = FromLoad(Pi, []byte(strings.Replace(piLoad, `"content":"ok"}`, `"content":"aborted"}`, 1)))
	if Compare(Pi, want, got) == "" {
		t.Error("pi: another result text should differ")
	}
}

// TestCompareGeminiQwen: Gemini CLI's request is reduced without its <session_context>, with a
// result it repeats once and the call ids it sends (no "<tool>__" prefix); Qwen Code's without
// its system prompt and <system-reminder> parts.
func TestCompareGeminiQwen(t *testing.T) {
	geminiReq := `{"contents":[
		{"role":"user","parts":[{"text":"<session_context>\nenv"},{"text":"list"}]},
		{"role":"model","parts":[{"functionCall":{"id":"c1","name":"ls","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}},{"functionResponse":{"id":"c1","name":"ls","response":{"output":"a"}}}]},
		{"role":"model","parts":[{"text":"Done."}]},
		{"role":"user","parts":[{"text":"Reply with OK."}]}]}`
	load := `{"role":"user","content":"list"}
{"role":"assistant","content":null,"tool_calls":[{"id":"ls__c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"ls__c1","content":"a"}
{"role":"assistant","content":"Done."}
`
	got, err := FromRequest(Gemini, []byte(geminiReq))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := FromLoad(Gemini, []byte(load))
	if d := Compare(Gemini, want, got); d != "" {
		t.Fatalf("gemini should agree: %s", d)
	}
	if w, _ := FromLoad(Gemini, []byte(strings.Replace(load, `"content":"Done."`, `"content":"Other."`, 1))); Compare(Gemini, w, got) == "" {
		t.Error("a different answer should differ")
	}
	qwenReq := `{"messages":[{"role":"system","content":"You are Qwen Code"},
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\nskills</system-reminder>"},{"type":"text","text":"read"}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"x"},
		{"role":"user","content":[{"type":"text","text":"<system-reminder>\ndate</system-reminder>"},{"type":"text","text":"Reply with OK."}]}]}`
	got, err = FromRequest(Qwen, []byte(qwenReq))
	if err != nil {
		t.Fatal(err)
	}
	want, _ = FromLoad(Qwen, []byte(`{"role":"user","content":"read"}
{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"call_1","content":"x"}
`))
	if d := Compare(Qwen, want, got); d != "" {
		t.Fatalf("qwen should agree: %s", d)
	}
	if Compare(Qwen, want[:1], got) == "" {
		t.Error("a missing call should differ")
	}
}

// omp's note of the day is left out of its turns, whether a part of its own or joined with the
// text after it; other reminders stay.
func TestDropOmpReminder(t *testing.T) {
	note := "text:<system-reminder>\nToday: 2026-11-29; current working directory: '/p'. Do not repeat this information in your reply.\n</system-reminder>"
	for _, tc := range []struct {
		in, want []Turn
	}{
		{[]Turn{{Role: "user", Parts: []string{note + "\nLook"}}}, []Turn{{Role: "user", Parts: []string{"text:Look"}}}},
		{[]Turn{{Role: "user", Parts: []string{note, "call:x"}}}, []Turn{{Role: "user", Parts: []string{"call:x"}}}},
		{[]Turn{{Role: "user", Parts: []string{note}}, {Role: "assistant", Parts: []string{"text:OK"}}}, []Turn{{Role: "assistant", Parts: []string{"text:OK"}}}},
		{[]Turn{{Role: "user", Parts: []string{"text:<system-reminder>\nother\n</system-reminder>"}}}, []Turn{{Role: "user", Parts: []string{"text:<system-reminder>\nother\n</system-reminder>"}}}},
	} {
		got := dropOmpReminder(tc.in)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("dropOmpReminder(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

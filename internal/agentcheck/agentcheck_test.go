package agentcheck

import (
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

// Package testsessions generates agent sessions for tests of several packages: the same
// conversation as a Claude Code, Codex and pi file.
package testsessions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Agent returns generated sessions of each agent format: a task, 30 tool calls with large
// results, and a last exchange.
func Agent() map[string]string {
	big := strings.Repeat("x ", 400)
	claude := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":"do the thing in main.go"}}` + "\n"
	parent := "u1"
	codex := `{"timestamp":"2025-10-01T08:00:00.000Z","type":"session_meta","payload":{"id":"0199a000-0000-7000-8000-000000000009","timestamp":"2025-10-01T08:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.46.0"}}` + "\n" +
		`{"timestamp":"2025-10-01T08:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"do the thing in main.go"}]}}` + "\n"
	pi := `{"type":"session","version":3,"id":"019e19b4-eb48-746a-aa6b-8dfcfa37954b","timestamp":"2026-05-12T01:02:27.657Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"e0000000","parentId":null,"timestamp":"2026-05-12T01:02:27.673Z","message":{"role":"user","content":[{"type":"text","text":"do the thing in main.go"}],"timestamp":1}}` + "\n"
	piParent := "e0000000"
	for i := 0; i < 30; i++ {
		a := fmt.Sprintf("a%d", i)
		claude += fmt.Sprintf(`{"type":"assistant","uuid":"%s","parentUuid":"%s","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}]}}`+"\n", a, parent, i, i)
		r := fmt.Sprintf("r%d", i)
		claude += fmt.Sprintf(`{"type":"user","uuid":"%s","parentUuid":"%s","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]}}`+"\n", r, a, i, big)
		parent = r
		codex += fmt.Sprintf(`{"timestamp":"2025-10-01T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c%d"}}`+"\n", i)
		codex += fmt.Sprintf(`{"timestamp":"2025-10-01T08:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c%d","output":"%s"}}`+"\n", i, big)
		pa, pr := fmt.Sprintf("a%07d", i), fmt.Sprintf("r%07d", i)
		pi += fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-05-12T01:02:28.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t%d","name":"bash","arguments":{"command":"ls"}}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}}`+"\n", pa, piParent, i)
		pi += fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-05-12T01:02:29.000Z","message":{"role":"toolResult","toolCallId":"t%d","toolName":"bash","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":3}}`+"\n", pr, pa, i, big)
		piParent = pr
	}
	claude += `{"type":"user","uuid":"u2","parentUuid":"` + parent + `","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":"now write the tests"}}` + "\n"
	claude += `{"type":"assistant","uuid":"a99","parentUuid":"u2","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_99","role":"assistant","content":[{"type":"text","text":"Tests written."}]}}` + "\n"
	codex += `{"timestamp":"2025-10-01T08:00:04.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"now write the tests"}]}}` + "\n"
	codex += `{"timestamp":"2025-10-01T08:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Tests written."}]}}` + "\n"
	pi += `{"type":"message","id":"u9999999","parentId":"` + piParent + `","timestamp":"2026-05-12T01:02:30.000Z","message":{"role":"user","content":[{"type":"text","text":"now write the tests"}],"timestamp":4}}` + "\n"
	pi += `{"type":"message","id":"z9999999","parentId":"u9999999","timestamp":"2026-05-12T01:02:31.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Tests written."}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":5}}` + "\n"
	return map[string]string{"claude-code": claude, "codex": codex, "pi": pi}
}

// MoreTurns continues a generated session after what it holds now (data): pi and Claude Code
// records continue from the newest entry.
func MoreTurns(format string, data []byte) string {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := lines[len(lines)-1]
	big := strings.Repeat("y ", 400)
	var b strings.Builder
	switch format {
	case "claude-code":
		var rec struct {
			UUID string `json:"uuid"`
		}
		json.Unmarshal([]byte(last), &rec)
		parent := rec.UUID
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, `{"type":"assistant","uuid":"m%d","parentUuid":"%s","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_m%d","role":"assistant","content":[{"type":"tool_use","id":"tm%d","name":"Bash","input":{"command":"ls"}}]}}`+"\n", i, parent, i, i)
			fmt.Fprintf(&b, `{"type":"user","uuid":"n%d","parentUuid":"m%d","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tm%d","content":"%s"}]}}`+"\n", i, i, i, big)
			parent = fmt.Sprintf("n%d", i)
		}
		fmt.Fprintf(&b, `{"type":"assistant","uuid":"m99","parentUuid":"%s","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_m99","role":"assistant","content":[{"type":"text","text":"Tests written."}]}}`+"\n", parent)
	case "codex":
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, `{"timestamp":"2025-10-01T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"cm%d"}}`+"\n", i)
			fmt.Fprintf(&b, `{"timestamp":"2025-10-01T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"cm%d","output":"%s"}}`+"\n", i, big)
		}
		b.WriteString(`{"timestamp":"2025-10-01T09:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Tests written."}]}}` + "\n")
	case "pi":
		var rec struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(last), &rec)
		parent := rec.ID
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, `{"type":"message","id":"b%07d","parentId":"%s","timestamp":"2026-05-12T02:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"tm%d","name":"bash","arguments":{}}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":6}}`+"\n", i, parent, i)
			fmt.Fprintf(&b, `{"type":"message","id":"c%07d","parentId":"b%07d","timestamp":"2026-05-12T02:00:01.000Z","message":{"role":"toolResult","toolCallId":"tm%d","toolName":"bash","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":7}}`+"\n", i, i, i, big)
			parent = fmt.Sprintf("c%07d", i)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"d9999999","parentId":"%s","timestamp":"2026-05-12T02:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Tests written."}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":8}}`+"\n", parent)
	}
	return b.String()
}

// HugeLastTurn continues a generated session of each format with a last turn that reads a log
// of about 33,000 tokens, as in the issue: the protected tail alone is over the threshold.
func HugeLastTurn(format, content string) string {
	log := strings.Repeat("2026-01-01 12:00:00 INFO worker 7 processed batch 1234 in 56 ms\n", 2000)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch format {
	case "claude-code":
		return content + `{"type":"assistant","uuid":"h1","parentUuid":"a99","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_h1","role":"assistant","content":[{"type":"tool_use","id":"th","name":"Bash","input":{"command":"cat app.log"}}]}}` + "\n" +
			`{"type":"user","uuid":"h2","parentUuid":"h1","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"th","content":` + q(log) + `}]}}` + "\n" +
			`{"type":"assistant","uuid":"h3","parentUuid":"h2","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"id":"msg_h3","role":"assistant","content":[{"type":"text","text":"The log shows no errors."}]}}` + "\n"
	case "codex":
		return content + `{"timestamp":"2025-10-01T08:00:06.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"cat\",\"app.log\"]}","call_id":"ch"}}` + "\n" +
			`{"timestamp":"2025-10-01T08:00:07.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"ch","output":` + q(log) + `}}` + "\n" +
			`{"timestamp":"2025-10-01T08:00:08.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The log shows no errors."}]}}` + "\n"
	case "pi":
		u := `"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},`
		return content + `{"type":"message","id":"h0000001","parentId":"z9999999","timestamp":"2026-05-12T01:03:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"th","name":"bash","arguments":{"command":"cat app.log"}}],` + u + `"stopReason":"toolUse","timestamp":6}}` + "\n" +
			`{"type":"message","id":"h0000002","parentId":"h0000001","timestamp":"2026-05-12T01:03:01.000Z","message":{"role":"toolResult","toolCallId":"th","toolName":"bash","content":[{"type":"text","text":` + q(log) + `}],"isError":false,"timestamp":7}}` + "\n" +
			`{"type":"message","id":"h0000003","parentId":"h0000002","timestamp":"2026-05-12T01:03:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The log shows no errors."}],` + u + `"stopReason":"stop","timestamp":8}}` + "\n"
	}
	return content + `{"role":"assistant","content":null,"tool_calls":[{"id":"ch","type":"function","function":{"name":"shell","arguments":"{\"command\":\"cat app.log\"}"}}]}` + "\n" +
		`{"role":"tool","tool_call_id":"ch","content":` + q(log) + `}` + "\n" +
		`{"role":"assistant","content":"The log shows no errors."}` + "\n"
}

// OpenAI is a plain OpenAI message list with turns tool calls and long results.
func OpenAI(turns int) string {
	var b strings.Builder
	b.WriteString(`{"role":"system","content":"You are a careful coding agent."}` + "\n")
	b.WriteString(`{"role":"user","content":"Refactor pkg/parse; keep the API stable."}` + "\n")
	filler := strings.Repeat("x ", 600)
	for t := 0; t < turns; t++ {
		id := fmt.Sprintf("call_%d", t)
		fmt.Fprintf(&b, `{"role":"assistant","content":"Step %d","tool_calls":[{"id":"%s","type":"function","function":{"name":"read","arguments":"{\"path\":\"pkg/parse/f%d.go\"}"}}]}`+"\n", t, id, t)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"%s","content":"%s"}`+"\n", id, filler)
	}
	b.WriteString(`{"role":"assistant","content":"Done."}` + "\n")
	return b.String()
}

// LongTools returns a session of each format whose tool results are runs of "x x x": OpenAI(30)
// and the *-long-tools fixtures of the repository's testdata/fixtures directory, fixtures.
func LongTools(fixtures string) (map[string]string, error) {
	out := map[string]string{"openai": OpenAI(30)}
	for _, name := range []string{"claude-long-tools", "codex-long-tools", "pi-long-tools"} {
		b, err := os.ReadFile(filepath.Join(fixtures, name+".jsonl"))
		if err != nil {
			return nil, err
		}
		out[name] = string(b)
	}
	return out, nil
}

package transcript

import (
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// The Gemini CLI fixtures: a file the agent wrote offline (Gemini CLI 0.61.0: a tool call, then
// two resumed turns) and small hand-written ones for the
// records the runs do not produce (rewinds, metadata and compression records, fragments,
// branches, non-conversation records).
func TestGeminiQwenFiles(t *testing.T) {
	for _, tc := range []struct {
		path        string
		format      Format
		history     RoleCounts
		calls, res  int
		compactions int
		effective   string
		summary     bool // the context opens with a summary
		usage       RecordedUsage
	}{
		// The result of the call is in the user message of results and in the "<id>_response"
		// copy the $set of each resume writes: Gemini CLI sends both.
		{path: "gemini-0.61-tool-resumed.jsonl", format: FormatGemini, history: RoleCounts{User: 3, Assistant: 4, Tool: 2},
			calls: 1, res: 2, effective: "uattauaua",
			usage: RecordedUsage{Responses: 4, InputTokens: 400, OutputTokens: 20, LastContext: 100}},
		// g1 written twice (its tool call added), /help and the info message are not sent, and
		// the rewind to u3 drops u3 and g3 from the context (not from the history).
		{path: "gemini-rewind-set.jsonl", format: FormatGemini, history: RoleCounts{User: 3, Assistant: 3, Tool: 1},
			calls: 1, res: 1, effective: "uatua",
			usage: RecordedUsage{Responses: 3, InputTokens: 410, OutputTokens: 26, CacheRead: 120, LastContext: 210}},
		// The $set of messages after two turns is Gemini CLI's chat compression.
		{path: "gemini-compressed.jsonl", format: FormatGemini, history: RoleCounts{User: 4, Assistant: 4},
			compactions: 1, effective: "Sauaua", summary: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			st, msgs := readTranscript(t, filepath.Join("../../testdata/fixtures", tc.path), FormatUnknown)
			checkHistory(t, st, tc.format, tc.history, tc.calls, tc.res, tc.compactions)
			if got := roleSeq(msgs); got != tc.effective {
				t.Errorf("effective = %s, want %s", got, tc.effective)
			}
			if len(msgs) > 0 && msgs[0].Summary != tc.summary {
				t.Errorf("first message Summary = %v, want %v", msgs[0].Summary, tc.summary)
			}
			var usage RecordedUsage
			if st.Usage != nil {
				usage = *st.Usage
			}
			if usage != tc.usage {
				t.Errorf("usage = %+v, want %+v", usage, tc.usage)
			}
		})
	}
}

// TestGeminiQwenDetection: their records are not taken for Claude Code's, nor Claude Code's
// for theirs.
func TestGeminiQwenDetection(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Format
	}{
		{`{"sessionId":"s","projectHash":"h","startTime":"t"}`, FormatGemini},
		{`{"$set":{"lastUpdated":"t"}}`, FormatGemini},
		{`{"$rewindTo":"m"}`, FormatGemini},
		{`{"id":"m","timestamp":"t","type":"gemini","content":"x"}`, FormatGemini},
		{`{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"x"}]}}`, FormatQwen},
		{`{"uuid":"u","parentUuid":"p","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{}}`, FormatQwen},
		{`{"uuid":"u","parentUuid":"p","sessionId":"s","type":"tool_result","message":{"role":"user","parts":[]}}`, FormatQwen},
		{`{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"x"}}`, FormatClaude},
		{`{"uuid":"u","parentUuid":"p","sessionId":"s","type":"system","subtype":"compact_boundary","content":"c"}`, FormatClaude},
	} {
		f, strong, err := detectLine(gjson.Parse(tc.line))
		if err != nil || !strong || f != tc.want {
			t.Errorf("%s: %s (strong %v, %v), want %s", tc.line, f, strong, err, tc.want)
		}
	}
}

func FuzzGeminiReader(f *testing.F) {
	addSeeds(f, "../../testdata/fixtures/gemini-*.jsonl")
	f.Add([]byte(`{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"x"}]}` + "\n" +
		`{"$set":{"messages":[{"id":"b","type":"gemini","content":[{"text":"y","thought":true}],"toolCalls":[{"id":"c","result":{"functionResponse":{}}}]}]}}` + "\n" +
		`{"$rewindTo":"zz"}` + "\n" + `{"id":"a","type":"user","content":{"text":"?"}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, data, FormatGemini) })
}

func FuzzQwenReader(f *testing.F) {
	addSeeds(f, "../../testdata/fixtures/qwen-*.jsonl")
	f.Add([]byte(`{"uuid":"a","parentUuid":"b","sessionId":"s","type":"assistant","message":{"role":"model","parts":[{"text":"x"}]}}` + "\n" +
		`{"uuid":"b","parentUuid":"a","sessionId":"s","type":"system","subtype":"chat_compression","systemPayload":{"compressedHistory":[{"parts":[]}]}}` + "\n" +
		`{"uuid":"a","parentUuid":null,"sessionId":"s","type":"assistant","message":{"role":"model","parts":[{"text":"y"}]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, data, FormatQwen) })
}

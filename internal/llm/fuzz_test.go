package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeOpenAI: decoding any server body must not panic, and must either fail with a
// classified error or return the content it found.
func FuzzDecodeOpenAI(f *testing.F) {
	for _, seed := range []string{
		`{"choices":[{"message":{"role":"assistant","content":"## Goal\n- x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"}]}}]}`,
		`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`,
		`{"error":{"message":"maximum context length","code":"context_length_exceeded"}}`,
		`{"error":"x"}`, `{"choices":[]}`, `[]`, `null`, ``, `{"choices":[{"message":{"content":-1}}],"usage":{"prompt_tokens":-5}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeOpenAI(data)
		if err != nil {
			de, ok := err.(*decodeError)
			if !ok || (de.kind != BadResponse && de.kind != ContextLength) {
				t.Fatalf("unclassified error %T %v", err, err)
			}
			if c != (Reply{}) {
				t.Fatalf("completion returned with an error: %+v", c)
			}
			return
		}
		if c.Usage.PromptTokens < 0 || c.Usage.OutputTokens < 0 {
			t.Fatalf("negative counts: %+v", c)
		}
		if utf8.Valid(data) && !utf8.ValidString(c.Text) && !strings.Contains(string(data), `\u`) {
			t.Fatalf("invalid UTF-8 from valid input: %q", c.Text)
		}
	})
}

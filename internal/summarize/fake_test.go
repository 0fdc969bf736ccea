package summarize

import (
	"errors"
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

// The model server of these tests is llmtest's fake; the clients are llm's, built here.

var apis = []string{"ollama", "openai"}

const testKey = "sk-test-SECRET-KEY-0123456789abcdef"

// newClient builds the provider under test against the fake.
func newClient(t *testing.T, api, url string, mod func(*llm.OllamaConfig, *llm.OpenAIConfig)) llm.Client {
	t.Helper()
	oc := llm.OllamaConfig{Endpoint: url, Model: "fake-model", Timeout: 5 * time.Second}
	ac := llm.OpenAIConfig{BaseURL: url + "/v1/", APIKey: testKey, Model: "fake-model", Window: 8192, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&oc, &ac)
	}
	if api == "ollama" {
		c, err := llm.NewOllama(oc)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, err := llm.NewOpenAI(ac)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantKind checks that err is an endpoint error of kind k that does not hold the API key.
func wantKind(t *testing.T, err error, k llm.ErrorKind) *llm.EndpointError {
	t.Helper()
	var ee *llm.EndpointError
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v (%T), want *llm.EndpointError of kind %v", err, err, k)
	}
	if ee.Kind != k {
		t.Fatalf("kind = %v, want %v (error: %v)", ee.Kind, k, err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Fatalf("error leaks the API key: %v", err)
	}
	return ee
}

var strp = llmtest.Strp

// sampleItems is a small coding session.
func sampleItems() []transcript.Item {
	return []transcript.Item{
		{Role: "user", Kind: "text", Text: "Please fix the failing test in estimate/estimate_test.go. Never touch go.mod.", Line: 3},
		{Role: "assistant", Kind: "text", Text: "I'll run the tests first because the failure message matters.", Line: 4},
		{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: `{"command":"go test ./estimate/"}`, Group: 1, Line: 5},
		{Role: "tool", Kind: "tool_result", Name: "Bash", Text: "--- FAIL: TestTokens (0.00s)\n    estimate_test.go:12: got 3, want 2\nFAIL\nexit status 1", IsError: true, Group: 1, Line: 6},
		{Role: "assistant", Kind: "text", Text: "We decided to use utf8.RuneCountInString instead of len, because len counts bytes.", Line: 7},
		{Role: "assistant", Kind: "tool_call", Name: "Edit", Text: `{"file_path":"/home/dev/ctxc/estimate/estimate.go","old_string":"len(s)","new_string":"utf8.RuneCountInString(s)"}`, Group: 2, Line: 8},
		{Role: "tool", Kind: "tool_result", Name: "Edit", Text: "ok", Group: 2, Line: 9},
		{Role: "user", Kind: "text", Text: "Now also add a benchmark for Tokens and run it once.", Line: 10},
		{Role: "assistant", Kind: "text", Text: "Adding BenchmarkTokens to estimate_test.go now.", Line: 11},
	}
}

// bigItems makes n tool exchanges of about size characters each, groups numbered from 1.
func bigItems(n, size int) []transcript.Item {
	var items []transcript.Item
	line := 1
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "Refactor the reader package and keep the API stable.", Line: line})
	for i := 1; i <= n; i++ {
		line++
		items = append(items, transcript.Item{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: fmt.Sprintf(`{"command":"cat file%d.go"}`, i), Group: i, Line: line})
		line++
		body := strings.Repeat(fmt.Sprintf("line %d of output from the tool call number %d\n", i, i), size/45+1)
		items = append(items, transcript.Item{Role: "tool", Kind: "tool_result", Name: "Bash", Text: body[:min(size, len(body))], Group: i, Line: line})
	}
	line++
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "Finally, run the whole test suite.", Line: line})
	return items
}

package llm

import (
	"os"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// Retries in tests wait milliseconds, not seconds. Retry-After is still honoured as sent.
	retryBase = time.Millisecond
	os.Exit(m.Run())
}

var apis = []string{"ollama", "openai"}

const testKey = "sk-test-SECRET-KEY-0123456789abcdef"

// newClient builds the provider under test against the fake (llmtest.Server).
func newClient(t *testing.T, api, url string, mod func(*OllamaConfig, *OpenAIConfig)) Client {
	t.Helper()
	oc := OllamaConfig{Endpoint: url, Model: "fake-model", Timeout: 5 * time.Second}
	ac := OpenAIConfig{BaseURL: url + "/v1/", APIKey: testKey, Model: "fake-model", Window: 8192, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&oc, &ac)
	}
	if api == "ollama" {
		c, err := NewOllama(oc)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c, err := NewOpenAI(ac)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

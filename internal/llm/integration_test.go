package llm

import (
	"context"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

// Integration tests against a real Ollama server. They run when CTXC_TEST_OLLAMA_URL and
// CTXC_TEST_OLLAMA_MODEL are set (see ../shared/tools/ollama-test-server/up.sh): a tiny
// random-weight model with a 4096-token trained context, a Modelfile num_ctx of 2048 and
// num_predict 64. What they check is the wire protocol and the window; what a summary makes of
// the replies is internal/summarize's integration tests.

func integrationEnv(t *testing.T) (url, model string) {
	t.Helper()
	return llmtest.Ollama(t)
}

// TestIntegrationOllamaClient: the server is found, its trained window (not the Modelfile's
// num_ctx) is the model's, and a short completion comes back with its usage.
func TestIntegrationOllamaClient(t *testing.T) {
	url, model := integrationEnv(t)
	o, err := NewOllama(OllamaConfig{Endpoint: url, Model: model, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if !Reachable(ctx, url) {
		t.Fatalf("Reachable(%s) = false", url)
	}
	w, err := o.Window(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w != 4096 || o.ModelfileNumCtx() != 2048 {
		t.Errorf("window %d, Modelfile num_ctx %d; want the trained 4096 and 2048", w, o.ModelfileNumCtx())
	}
	r, err := o.Complete(ctx, Prompt("You write notes.", "the user read the file and the test was done"), Options{NumCtx: 2048, MaxTokens: 16})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text == "" || r.Usage.PromptTokens <= 0 || r.Usage.PromptTokens >= 2048 || r.Usage.OutputTokens > 16 || r.DoneReason == "" {
		t.Errorf("reply = %+v", r)
	}
}

// TestIntegrationOpenAICompatibleClient: Ollama's /v1 answers the OpenAI client's request with a
// reply and its usage, or, when the tiny model's words run past the cap, a BadResponse.
func TestIntegrationOpenAICompatibleClient(t *testing.T) {
	url, model := integrationEnv(t)
	o, err := NewOpenAI(OpenAIConfig{BaseURL: url + "/v1", Model: model, Window: 2048, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r, err := o.Complete(context.Background(), Prompt("You write notes.", "the user read the file and the test was done"), Options{MaxTokens: 16})
	if err != nil {
		if !IsKind(err, BadResponse) {
			t.Fatal(err)
		}
		t.Logf("cut short: %v", err)
		return
	}
	if r.Text == "" || r.Usage.PromptTokens <= 0 || r.DoneReason == "" {
		t.Errorf("reply = %+v", r)
	}
}

// TestIntegrationStreamedReplies: the real server streams a reply to both clients when asked
// (a terminal's progress line), every piece is counted, and the reply has its text, reason and
// usage as a whole one has.
func TestIntegrationStreamedReplies(t *testing.T) {
	url, model := integrationEnv(t)
	ol, err := NewOllama(OllamaConfig{Endpoint: url, Model: model, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	oa, err := NewOpenAI(OpenAIConfig{BaseURL: url + "/v1", Model: model, Window: 2048, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Client{ol, oa} {
		pieces := 0
		r, err := c.Complete(context.Background(), Prompt("You write notes.", "the user read the file and the test was done"),
			Options{NumCtx: 2048, MaxTokens: 16, Received: func(n int) { pieces = n }})
		if err != nil {
			t.Fatalf("%s: %v", c.Provider(), err)
		}
		if r.Text == "" || pieces == 0 || pieces > 16 || r.DoneReason == "" || r.Usage.PromptTokens <= 0 {
			t.Errorf("%s: %d pieces, reply %+v", c.Provider(), pieces, r)
		}
	}
}

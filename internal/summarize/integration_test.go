package summarize

import (
	"context"
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/llm/llmtest"
)

// Integration tests against a real Ollama server. They run when CTXC_TEST_OLLAMA_URL and
// CTXC_TEST_OLLAMA_MODEL are set (see ../shared/tools/ollama-test-server/up.sh): a tiny
// random-weight model with a 4096-token trained context, a Modelfile num_ctx of 2048 and
// num_predict 64. Its replies are gibberish that runs to the output cap, so validation usually
// rejects them and the result falls back; what these tests check is the wire protocol, the
// window, chunking, and that no request is silently truncated.

func integrationEnv(t *testing.T) (url, model string) {
	t.Helper()
	return llmtest.Ollama(t)
}

// recorder wraps a Client and records every call. With maxOut > 0 it lowers the output
// cap: past about 60 output tokens the tiny model falls into a loop and the server ends the reply
// without done:true (Complete rightly reports BadResponse), so no prompt_eval_count would come
// back to check.
type recorder struct {
	llm.Client
	maxOut int
	mu     sync.Mutex
	calls  []recordedCall
}

type recordedCall struct {
	numCtx, maxOut, promptEval, evalCount int
	done                                  string
	err                                   error
}

func (r *recorder) Complete(ctx context.Context, msgs []llm.Message, opts llm.Options) (llm.Reply, error) {
	if r.maxOut > 0 {
		opts.MaxTokens = min(opts.MaxTokens, r.maxOut)
	}
	c, err := r.Client.Complete(ctx, msgs, opts)
	r.mu.Lock()
	r.calls = append(r.calls, recordedCall{opts.NumCtx, opts.MaxTokens, c.Usage.PromptTokens, c.Usage.OutputTokens, c.DoneReason, err})
	r.mu.Unlock()
	return c, err
}

// SizesContext forwards the wrapped Client's capability (a wrapper must not hide it).
func (r *recorder) SizesContext() bool { return llm.SizesContext(r.Client) }

func checkResult(t *testing.T, res Result, err error, provider, model string) {
	t.Helper()
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	if res.Provider != provider || res.Model != model {
		t.Errorf("provider/model = %q/%q, want %q/%q", res.Provider, res.Model, provider, model)
	}
	switch res.Fallback {
	case "none", "aggressive", "extractive":
	default:
		t.Errorf("fallback = %q", res.Fallback)
	}
	if strings.TrimSpace(res.Text) == "" {
		t.Error("empty summary")
	}
	t.Logf("fallback %s, prompt %s, chunks %d, input ~%d tokens, server prompt tokens %d",
		res.Fallback, res.Prompt, res.Chunks, res.InputTokens, res.PromptEvalCount)
}

func TestIntegrationOllama(t *testing.T) {
	url, model := integrationEnv(t)
	o, err := llm.NewOllama(llm.OllamaConfig{Endpoint: url, Model: model, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The client on its own (the wire protocol, the window) is llm's TestIntegrationOllamaClient.
	// The whole pipeline, unmodified: the gibberish fails validation (or the server cuts the
	// reply short), so a fallback is expected, but never an error.
	rec := &recorder{Client: o}
	res, err := Summarize(ctx, rec, Request{Items: sampleItems(), TargetTokens: 200}, Options{Logf: t.Logf})
	checkResult(t, res, err, "ollama", model)
	if len(rec.calls) == 0 {
		t.Fatal("no call reached the server")
	}
	checkCalls(t, rec.calls, 4096, false)
	// Again with output short enough for the tiny model to finish its replies.
	rec = &recorder{Client: o, maxOut: 32}
	res, err = Summarize(ctx, rec, Request{Items: sampleItems(), TargetTokens: 200}, Options{Logf: t.Logf})
	checkResult(t, res, err, "ollama", model)
	checkCalls(t, rec.calls, 4096, true)
}

// checkCalls: every call stayed within the window; failures are only the kinds Summarize
// escalates (the tiny model's tokenizer counts far more tokens than chars/4, so ContextLength
// happens, and its word salad can end without done:true); every answered call reports a prompt
// smaller than the num_ctx it asked for.
func checkCalls(t *testing.T, calls []recordedCall, window int, wantAnswered bool) {
	t.Helper()
	answered := 0
	for i, c := range calls {
		if c.numCtx <= 0 || c.numCtx > window {
			t.Errorf("call %d: num_ctx %d outside (0, %d]", i, c.numCtx, window)
		}
		if c.err != nil {
			if !llm.IsKind(c.err, llm.ContextLength) && !llm.IsKind(c.err, llm.BadResponse) {
				t.Errorf("call %d: unexpected error %v", i, c.err)
			}
			t.Logf("call %d: num_ctx %d: %v", i, c.numCtx, c.err)
			continue
		}
		answered++
		t.Logf("call %d: num_ctx %d, prompt_eval_count %d, eval %d, done %s", i, c.numCtx, c.promptEval, c.evalCount, c.done)
		if c.promptEval <= 0 || c.promptEval >= c.numCtx {
			t.Errorf("call %d: prompt_eval_count %d with num_ctx %d", i, c.promptEval, c.numCtx)
		}
		if c.evalCount > c.maxOut {
			t.Errorf("call %d: %d output tokens over num_predict %d", i, c.evalCount, c.maxOut)
		}
	}
	if wantAnswered && answered == 0 {
		t.Error("no call was answered")
	}
}

func TestIntegrationOpenAICompatible(t *testing.T) {
	url, model := integrationEnv(t)
	// Ollama's /v1 cannot set num_ctx: the Modelfile's 2048 is the window there.
	o, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: url + "/v1", Model: model, Window: 2048, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Client: o}
	res, err := Summarize(context.Background(), rec, Request{Items: sampleItems(), TargetTokens: 200}, Options{Logf: t.Logf})
	checkResult(t, res, err, "openai", model)
	if len(rec.calls) == 0 {
		t.Fatal("no call reached the server")
	}
	for i, c := range rec.calls {
		if c.err != nil && !llm.IsKind(c.err, llm.BadResponse) {
			t.Errorf("call %d: %v", i, c.err)
		}
		t.Logf("call %d: prompt tokens %d, output %d, finish %q, err %v", i, c.promptEval, c.evalCount, c.done, c.err)
	}
}

// TestIntegrationChunked sends a request several times the window: it must be chunked, and no
// call may come back with prompt_eval_count equal to num_ctx (the mark of silent truncation).
func TestIntegrationChunked(t *testing.T) {
	url, model := integrationEnv(t)
	o, err := llm.NewOllama(llm.OllamaConfig{Endpoint: url, Model: model, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Words from the model's vocabulary, so its tokenizer and chars/4 roughly agree.
	var items []transcript.Item
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "read the file and fix the test", Line: 1})
	for i := 1; i <= 30; i++ {
		items = append(items,
			transcript.Item{Role: "assistant", Kind: "tool_call", Name: "read", Text: fmt.Sprintf(`{"path":"file%d.go"}`, i), Group: i, Line: 2 * i},
			transcript.Item{Role: "tool", Kind: "tool_result", Name: "read", Group: i, Line: 2*i + 1,
				Text: strings.Repeat("the server read the data and the client write the output to the file and the test was done. ", 20)})
	}
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "now run the build", Line: 100})
	req := Request{Items: items, TargetTokens: 300}
	plan := Plan(req, 4096)
	if plan.Fits || plan.Chunks < 2 {
		t.Fatalf("test request is not bigger than the window: %+v", plan)
	}
	rec := &recorder{Client: o, maxOut: 32}
	res, err := Summarize(context.Background(), rec, req, Options{Logf: t.Logf})
	checkResult(t, res, err, "ollama", model)
	if res.Chunks < 2 {
		t.Errorf("chunks = %d, want > 1", res.Chunks)
	}
	checkCalls(t, rec.calls, 4096, true)
}

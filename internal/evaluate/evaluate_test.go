package evaluate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/llm"
)

// mustKeep are the categories the context must keep whole.
var mustKeep = []ledger.Category{ledger.Rule, ledger.LastRequest, ledger.Modified, ledger.Ref}

// settings are the compactions every sample and fixture is evaluated with: the default target
// over a 20k threshold, and a low threshold with a short tail so that smaller sessions compact.
var settings = []struct {
	name string
	o    compact.Options
}{
	{"threshold-20000", compact.Options{Threshold: 20000, Target: 2000}},
	{"threshold-3000", compact.Options{Threshold: 3000, Target: 1500, Zones: compact.ZoneOptions{KeepTail: 1}}},
}

func inputs(t *testing.T) []string {
	fixtures, _ := filepath.Glob("../../testdata/fixtures/*.jsonl")
	samples, _ := filepath.Glob("../../../shared/samples/*/*.jsonl")
	if len(samples) == 0 {
		t.Log("no samples in ../../shared/samples: fixtures only")
	}
	return append(fixtures, samples...)
}

// evalAll evaluates every input under every setting and checks that each compacted context
// keeps every rule, last request, modified file and URL/id of its ledger, and its summary
// within the target. It returns how many files were compacted.
func evalAll(t *testing.T, c llm.Client) int {
	compacted := 0
	for _, s := range settings {
		for _, path := range inputs(t) {
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			o := s.o
			o.Client = c
			o.Now = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			r, err := File(context.Background(), path, o)
			if err != nil {
				t.Errorf("%s %s: %v", s.name, path, err)
				continue
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Fatalf("%s: the source changed", path)
			}
			if r.Status != compact.StatusCompacted {
				continue
			}
			compacted++
			if !r.WithinTarget || r.SummaryTokens > o.Target {
				t.Errorf("%s %s: summary %d tokens, target %d", s.name, path, r.SummaryTokens, o.Target)
			}
			if r.TokensAfter >= r.TokensBefore {
				t.Errorf("%s %s: %d → %d tokens", s.name, path, r.TokensBefore, r.TokensAfter)
			}
			for _, cat := range mustKeep {
				if k := r.ByCat[cat]; k.Context != k.Facts {
					t.Errorf("%s %s: %s %d of %d in the context", s.name, path, cat, k.Context, k.Facts)
				}
			}
			if r.Ledger == nil || r.Ledger.Facts != r.Total.Facts {
				t.Errorf("%s %s: ledger %+v, total %+v", s.name, path, r.Ledger, r.Total)
			}
			t.Logf("%s %s: %d facts, %d in the summary alone, %d in the context; %d → %d tokens",
				s.name, filepath.Base(path), r.Total.Facts, r.Total.Summary, r.Total.Context, r.TokensBefore, r.TokensAfter)
		}
	}
	return compacted
}

func TestSamplesExtractive(t *testing.T) {
	n := evalAll(t, nil)
	if _, err := os.Stat("../../../shared/samples"); err == nil && n < 4 {
		t.Errorf("only %d compactions evaluated", n)
	}
}

// TestIntegrationSamples: the same with the Ollama test model, whose text is gibberish: the
// ledger does all the work.
func TestIntegrationSamples(t *testing.T) {
	url, model := os.Getenv("CTXC_TEST_OLLAMA_URL"), os.Getenv("CTXC_TEST_OLLAMA_MODEL")
	if url == "" || model == "" {
		t.Skip("CTXC_TEST_OLLAMA_URL and CTXC_TEST_OLLAMA_MODEL not set")
	}
	// The model runs on the CPU beside the rest of CI (-race, the agents): one request of a
	// large chunk can take minutes there, which is slowness, not an outage.
	c, err := llm.NewOllama(llm.OllamaConfig{Endpoint: url, Model: model, Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if n := evalAll(t, c); n == 0 {
		t.Error("nothing compacted")
	}
}

// TestFileSkipped: a file under the threshold is reported, not compacted, and counts as whole.
func TestFileSkipped(t *testing.T) {
	r, err := File(context.Background(), "../../testdata/fixtures/openai-tools.jsonl", compact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != compact.StatusSkipped || r.Reason != compact.ReasonUnderThreshold || r.Recall != 1 {
		t.Errorf("%+v", r)
	}
}

package usage

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

func TestLookupNames(t *testing.T) {
	p := Shipped()
	for _, tc := range []struct {
		model string
		want  float64 // input price; -1: unpriced
	}{
		{"claude-opus-4-7", 5},
		{"claude-sonnet-4-5-20250929", 3},
		{"anthropic/claude-sonnet-4-5", 3},
		{"claude-opus-4-5@20251101", 5},
		{"claude-opus-4-6[1m]", 5},
		{"Claude-Haiku-4-5-20251001", 1},
		{"gpt-5-codex", 1.25},
		{"claude-opus-4-9", -1}, // a newer model is not priced as an older one
		{"gpt-5.5", -1},         // its long-context price is not per kind beyond 200k: not shipped
		{"claude-fable-9", -1},
		{"<synthetic>", -1},
		{"", -1},
	} {
		pr, ok := p.Lookup(tc.model)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%q: priced %v, want unpriced", tc.model, pr.Input)
		case tc.want >= 0 && (!ok || pr.Input != tc.want):
			t.Errorf("%q: input %v (found %v), want %v", tc.model, pr.Input, ok, tc.want)
		}
	}
}

func TestCostByKind(t *testing.T) {
	p := Shipped()
	for _, tc := range []struct {
		name  string
		model string
		t     Tokens
		want  float64
	}{
		{"input and output", "claude-sonnet-4-5", Tokens{Input: 1013, Output: 98}, 0.004509},
		{"five-minute and one-hour cache writes", "claude-opus-4-7", Tokens{CacheWrite: 3000, CacheWrite1h: 1000}, (2000*6.25 + 1000*10) / 1e6},
		{"cache reads", "claude-opus-4-7", Tokens{CacheRead: 1_000_000}, 0.5},
		{"long context beyond 200k of a kind", "claude-sonnet-4-5", Tokens{Input: 300_000}, (200_000*3 + 100_000*6) / 1e6},
		{"no long-context price", "claude-opus-4-7", Tokens{Input: 300_000}, 1.5},
	} {
		got, ok := p.Cost(tc.model, tc.t)
		if !ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := p.Cost("claude-fable-9", Tokens{Input: 1}); ok {
		t.Error("an unknown model was priced")
	}
}

func TestSumSaysUnpriced(t *testing.T) {
	c := Shipped().Sum([]Response{
		{Model: "claude-opus-4-7", Tokens: Tokens{Input: 1_000_000}},
		{Model: "claude-fable-9", Tokens: Tokens{Input: 1_000_000}},
		{Model: "", Tokens: Tokens{Output: 1}},
	})
	if c.USD != 5 || c.Complete() || strings.Join(c.Unpriced, ",") != "(model not recorded),claude-fable-9" {
		t.Errorf("cost %+v", c)
	}
}

func TestLoadPricesOverrides(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p.json")
	os.WriteFile(good, []byte(`{"date":"2030-01-01","source":"mine","models":{"Claude-Opus-4-7":{"input":1,"output":2},"local-llama":{"input":0,"output":0}}}`), 0o644)
	p, err := LoadPrices(good)
	if err != nil {
		t.Fatal(err)
	}
	if pr, _ := p.Lookup("claude-opus-4-7"); pr.Input != 1 || p.Date != "2030-01-01" || p.Source != "mine" {
		t.Errorf("override not applied: %+v %s %s", pr, p.Date, p.Source)
	}
	if _, ok := p.Lookup("local-llama"); !ok {
		t.Error("an added model is unpriced")
	}
	if pr, _ := p.Lookup("claude-haiku-4-5"); pr.Input != 1 {
		t.Errorf("shipped model lost: %+v", pr)
	}
	for name, body := range map[string]string{
		"bad.json":      `{"models":`,
		"empty.json":    `{"models":{}}`,
		"negative.json": `{"models":{"m":{"input":-1}}}`,
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		_, err := LoadPrices(path)
		var pe *PriceFileError
		if err == nil || !strings.Contains(err.Error(), path) || !asPriceError(err, &pe) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadPrices(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing table was accepted")
	}
}

func asPriceError(err error, pe **PriceFileError) bool {
	e, ok := err.(*PriceFileError)
	*pe = e
	return ok
}

func TestReadFormats(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format transcript.Format
		in     string
		want   []Response
	}{
		{"claude: a response's lines counted once, with its last figures", transcript.FormatClaude,
			`{"type":"assistant","requestId":"r","timestamp":"2026-01-02T03:04:05Z","message":{"id":"m","model":"claude-opus-4-7","usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":3},"cache_read_input_tokens":4}}}
{"type":"assistant","requestId":"r","message":{"id":"m","model":"claude-opus-4-7","usage":{"input_tokens":1,"output_tokens":9,"cache_creation_input_tokens":3,"cache_creation":{"ephemeral_1h_input_tokens":3},"cache_read_input_tokens":4}}}
not json "usage"
{"type":"assistant","message":{"model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}}}
`, []Response{{Line: 1, Model: "claude-opus-4-7", Tokens: Tokens{Input: 1, Output: 9, CacheWrite: 3, CacheWrite1h: 3, CacheRead: 4}}}},
		{"codex: the turn's model, repeats not counted", transcript.FormatCodex,
			`{"timestamp":"2026-01-02T03:04:05Z","type":"turn_context","payload":{"model":"gpt-5-codex"}}
{"timestamp":"2026-01-02T03:04:05Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"total_tokens":15},"last_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":5}}}}
{"timestamp":"2026-01-02T03:04:05Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"total_tokens":15},"last_token_usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":5}}}}
{"timestamp":"2026-01-02T03:04:05Z","type":"event_msg","payload":{"type":"token_count","info":null}}
`, []Response{{Line: 2, Model: "gpt-5-codex", Tokens: Tokens{Input: 6, CacheRead: 4, Output: 5}}}},
		{"pi: each assistant message", transcript.FormatPi,
			`{"type":"message","timestamp":"2026-01-02T03:04:05Z","message":{"role":"assistant","model":"claude-sonnet-4-5","usage":{"input":7,"output":8,"cacheRead":9,"cacheWrite":10}}}
{"type":"message","message":{"role":"user","usage":{"input":7}}}
`, []Response{{Line: 1, Model: "claude-sonnet-4-5", Tokens: Tokens{Input: 7, Output: 8, CacheRead: 9, CacheWrite: 10}}}},
		{"formats that record no usage", transcript.FormatOpenAI, `{"usage":{"input_tokens":1}}` + "\n", nil},
	} {
		got, err := Read(strings.NewReader(tc.in), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range got {
			got[i].Time = got[i].Time.UTC()
			if !got[i].Time.IsZero() && got[i].Time.Format("2006-01-02T15:04:05Z") != "2026-01-02T03:04:05Z" {
				t.Errorf("%s: time %v", tc.name, got[i].Time)
			}
			got[i].Time = tc.want[i].Time
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %+v, want %+v", tc.name, got[i], tc.want[i])
			}
		}
	}
}

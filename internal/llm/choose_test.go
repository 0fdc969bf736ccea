package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		want     bool
	}{
		{"http://127.0.0.1:11434", true},
		{"localhost:11434", true},
		{"http://[::1]:8080/v1", true},
		{"http://localhost/v1", true},
		{"https://api.openai.com/v1", false},
		{"http://10.0.0.5:11434", false},
		{"::not a url", false},
	} {
		if got := IsLoopback(tc.endpoint); got != tc.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tc.endpoint, got, tc.want)
		}
	}
}

func TestChoose(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"version":"0.34.4"}`)) }))
	defer ollama.Close()
	down := "http://127.0.0.1:1" // nothing listens there
	var choiceErr *ChoiceError
	var configErr *ConfigError
	for _, tc := range []struct {
		name   string
		c      Choice
		client bool
		redact bool
		note   string // a part of Note
		errAs  any
	}{
		{name: "extractive", c: Choice{Provider: "extractive", Model: "m"}},
		{name: "auto without a model", c: Choice{Provider: "auto", Endpoint: ollama.URL}, note: "no --model given"},
		{name: "auto with ollama up", c: Choice{Provider: "auto", Model: "m", Endpoint: ollama.URL}, client: true, note: "using ollama m"},
		{name: "auto with ollama down and no openai", c: Choice{Provider: "auto", Model: "m", Getenv: env("OLLAMA_HOST", down)}, note: "ollama not reachable"},
		{name: "auto falls back to openai", c: Choice{Provider: "auto", Model: "m", Getenv: env("OLLAMA_HOST", down, "OPENAI_BASE_URL", "https://api.example.com/v1")}, client: true, redact: true, note: "openai-compatible"},
		{name: "dry run reaches for nothing", c: Choice{Provider: "auto", Model: "m", Endpoint: ollama.URL, DryRun: true}},
		{name: "ollama needs a model", c: Choice{Provider: "ollama"}, errAs: &configErr},
		{name: "openai needs a model", c: Choice{Provider: "openai"}, errAs: &configErr},
		{name: "unknown provider", c: Choice{Provider: "gpt"}, errAs: &choiceErr},
		{name: "loopback is not redacted", c: Choice{Provider: "ollama", Model: "m", Endpoint: ollama.URL}, client: true},
		{name: "loopback redacted on request", c: Choice{Provider: "ollama", Model: "m", Endpoint: ollama.URL, Redact: true}, client: true, redact: true},
		{name: "remote is redacted", c: Choice{Provider: "openai", Model: "m", Endpoint: "https://api.example.com/v1"}, client: true, redact: true},
		{name: "remote unredacted on request", c: Choice{Provider: "openai", Model: "m", Endpoint: "https://api.example.com/v1", NoRedact: true}, client: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Getenv == nil {
				tc.c.Getenv = env()
			}
			got, err := Choose(context.Background(), tc.c)
			if tc.errAs != nil {
				if err == nil || !errors.As(err, tc.errAs) {
					t.Fatalf("err = %v, want %T", err, tc.errAs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got.Client != nil) != tc.client || got.Redact != tc.redact || !strings.Contains(got.Note, tc.note) {
				t.Errorf("got client=%v redact=%v note=%q; want client=%v redact=%v note containing %q",
					got.Client != nil, got.Redact, got.Note, tc.client, tc.redact, tc.note)
			}
		})
	}
}

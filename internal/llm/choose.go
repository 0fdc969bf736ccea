package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Choice is what a user says about the summarizer: the provider (auto, ollama, openai or
// extractive), the model, where to reach it and how to treat what is sent there.
type Choice struct {
	Provider  string // "auto" picks the first that can run: ollama, then openai, then extractive
	Model     string
	Endpoint  string              // "" uses OLLAMA_HOST or OPENAI_BASE_URL, then the defaults
	APIKeyEnv string              // the environment variable holding the OpenAI key
	Getenv    func(string) string // the environment (os.Getenv)
	Window    int                 // the summarizer model's context window, 0 to ask or default
	Timeout   time.Duration       // of one request
	Redact    bool                // redact even for a loopback endpoint
	NoRedact  bool                // do not redact for an endpoint off this machine
	DryRun    bool                // nothing will be sent: auto reaches for no endpoint
}

// Chosen is the summarizer a Choice resolves to.
type Chosen struct {
	Client Client // nil: the extractive summarizer
	Redact bool   // replace secret-looking strings before sending text to Client
	Note   string // for the user: which summarizer runs and, for auto, why
}

// DefaultOllamaURL is where Ollama listens unless told otherwise (OLLAMA_HOST, --endpoint).
const DefaultOllamaURL = "http://127.0.0.1:11434"

// DefaultOpenAIURL is the OpenAI API, used by --provider openai without an endpoint.
const DefaultOpenAIURL = "https://api.openai.com/v1"

// ChoiceError is a provider name that is not one of ctxc's (a usage error).
type ChoiceError struct{ Provider string }

func (e *ChoiceError) Error() string {
	return fmt.Sprintf("unknown --provider %q (want auto, ollama, openai or extractive)", e.Provider)
}

// ConfigError is a choice that cannot run as configured: no model, or a client that cannot be
// built for the endpoint.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Choose resolves a Choice. With "auto" it uses Ollama when a model is given and Ollama answers,
// else an OpenAI-compatible endpoint when one is configured, else the extractive summarizer,
// and says which in Note.
func Choose(ctx context.Context, c Choice) (Chosen, error) {
	if c.DryRun && c.Provider == "auto" {
		return Chosen{}, nil
	}
	ollamaURL := firstNonEmpty(c.Endpoint, c.Getenv("OLLAMA_HOST"), DefaultOllamaURL)
	openaiURL := firstNonEmpty(c.Endpoint, c.Getenv("OPENAI_BASE_URL"))
	switch c.Provider {
	case "extractive":
		return Chosen{}, nil
	case "ollama":
		return c.ollama(ollamaURL)
	case "openai":
		return c.openAI(openaiURL)
	case "auto":
		return c.auto(ctx, ollamaURL, openaiURL)
	}
	return Chosen{}, &ChoiceError{Provider: c.Provider}
}

// auto is Choose's "auto": the first summarizer that can run.
func (c Choice) auto(ctx context.Context, ollamaURL, openaiURL string) (Chosen, error) {
	if c.Model != "" && Reachable(ctx, ollamaURL) {
		ch, err := c.ollama(ollamaURL)
		ch.Note = "using ollama " + c.Model + " at " + ollamaURL
		return ch, err
	}
	if c.Model != "" && openaiURL != "" {
		ch, err := c.openAI(openaiURL)
		ch.Note = "using openai-compatible " + c.Model + " at " + openaiURL
		return ch, err
	}
	note := "using the extractive summarizer (no LLM"
	if c.Model == "" {
		note += ": no --model given"
	} else {
		note += ": ollama not reachable at " + ollamaURL + " and no openai endpoint configured"
	}
	return Chosen{Note: note + ")"}, nil
}

func (c Choice) ollama(url string) (Chosen, error) {
	if c.Model == "" {
		return Chosen{}, &ConfigError{errors.New("--model is required for --provider ollama (or set model: in the config file, or CTXC_MODEL)")}
	}
	cl, err := NewOllama(OllamaConfig{Endpoint: url, Model: c.Model, Timeout: c.Timeout})
	if err != nil {
		return Chosen{}, &ConfigError{err}
	}
	return Chosen{Client: cl, Redact: c.redact(url)}, nil
}

func (c Choice) openAI(url string) (Chosen, error) {
	if c.Model == "" {
		return Chosen{}, &ConfigError{errors.New("--model is required for --provider openai")}
	}
	if url == "" {
		url = DefaultOpenAIURL
	}
	key := c.Getenv(c.APIKeyEnv)
	cl, err := NewOpenAI(OpenAIConfig{BaseURL: url, APIKey: key, Model: c.Model, Window: c.Window, Timeout: c.Timeout})
	if err != nil {
		return Chosen{}, &ConfigError{err}
	}
	return Chosen{Client: cl, Redact: c.redact(url)}, nil
}

// redact decides whether text is redacted before it is sent to url: always for endpoints off
// this machine, unless NoRedact; for loopback only with Redact.
func (c Choice) redact(url string) bool {
	return c.Redact || (!c.NoRedact && !IsLoopback(url))
}

// IsLoopback reports whether an endpoint URL (or host:port) is on this machine: text sent there
// does not leave it, so redaction is not needed by default.
func IsLoopback(endpoint string) bool {
	host := endpoint
	if strings.Contains(endpoint, "://") {
		u, err := url.Parse(endpoint)
		if err != nil {
			return false
		}
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(endpoint); err == nil {
		host = h
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

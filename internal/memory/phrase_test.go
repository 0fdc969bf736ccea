package memory

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/llm"
)

// fakeModel answers every request with a fixed text.
type fakeModel struct {
	reply string
	err   error
	got   string
}

func (f *fakeModel) Provider() string                    { return "fake" }
func (f *fakeModel) Model() string                       { return "fake" }
func (f *fakeModel) Window(context.Context) (int, error) { return 8192, nil }
func (f *fakeModel) Complete(_ context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	f.got = msgs[1].Content
	return llm.Reply{Text: f.reply}, f.err
}

func phraseEntries() []Entry {
	src := func(name string, line int) []Source { return []Source{{Path: name, Line: line, Time: day}} }
	es := []Entry{
		{Kind: Rule, Text: "Always run the tests with -race.", Count: 3, Sessions: 2, Last: day, Sources: src("a.jsonl", 1)},
		{Kind: Rule, Text: "run the tests with -race please, every time", Count: 1, Sessions: 1, Last: day, Sources: src("b.jsonl", 4)},
		{Kind: Rule, Text: "Use pnpm for installs.", Count: 1, Sessions: 1, Last: day, Sources: src("b.jsonl", 9)},
		{Kind: Constraint, Text: "Never push to master.", Count: 2, Sessions: 2, Last: day, Sources: src("a.jsonl", 7)},
		{Kind: Command, Text: "go test -race ./...", Count: 9, Sessions: 2, Last: day, Sources: src("a.jsonl", 3)},
	}
	for i := range es {
		es[i].key = entryKey(es[i].Kind, es[i].Text)
	}
	return es
}

func TestPhraseKeepsOnlyWhatCodeAccepts(t *testing.T) {
	tests := []struct {
		name     string
		reply    string
		accepted int
		want     []string // texts among the statements after the pass
		gone     []string
	}{
		{"a merge", "- Run the tests with -race. [R1, R2]\n- Use pnpm for installs. [R3]\n- Never push to master. [C1]",
			3, []string{"Run the tests with -race.", "Use pnpm for installs.", "Never push to master."}, []string{"Always run the tests with -race."}},
		{"an invented fact", "- Run the tests with -race and -count=1. [R1, R2]", 0,
			[]string{"Always run the tests with -race.", "run the tests with -race please, every time"}, nil},
		{"a new word", "- Run the integration tests with -race. [R1]", 0, []string{"Always run the tests with -race."}, nil},
		{"a lost prohibition", "- Push to master. [C1]", 0, []string{"Never push to master."}, nil},
		{"kinds mixed", "- Never push to master, run the tests with -race. [C1, R1]", 0, []string{"Never push to master."}, nil},
		{"an unknown id", "- Use pnpm for installs. [R9]", 0, []string{"Use pnpm for installs."}, nil},
		{"a note cited twice", "- Use pnpm for installs. [R3]\n- Use pnpm. [R3]", 1, []string{"Use pnpm for installs."}, nil},
		{"no citation", "Here is the memory file:\n- Use pnpm.", 0, []string{"Use pnpm for installs."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es := phraseEntries()
			out, rep, err := Phrase(context.Background(), &fakeModel{reply: tt.reply}, es)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Accepted != tt.accepted {
				t.Errorf("accepted %d lines, want %d (rejected %q)", rep.Accepted, tt.accepted, rep.Rejected)
			}
			for _, w := range tt.want {
				if !hasText(out, w) {
					t.Errorf("%q missing after the pass: %+v", w, out)
				}
			}
			for _, g := range tt.gone {
				if hasText(out, g) {
					t.Errorf("%q still there after it was merged", g)
				}
			}
			if !hasText(out, "go test -race ./...") {
				t.Error("a command was lost: commands are not the model's")
			}
		})
	}
}

func TestPhraseMergedCounts(t *testing.T) {
	out, _, err := Phrase(context.Background(), &fakeModel{reply: "- Run the tests with -race. [R1, R2]"}, phraseEntries())
	if err != nil {
		t.Fatal(err)
	}
	e := find(out, Rule, "Run the tests with -race.")
	if e == nil || e.Count != 4 || e.Sessions != 2 || len(e.Sources) != 2 {
		t.Fatalf("merged entry %+v, want 4× in 2 sessions with both sources", e)
	}
}

func TestPhraseModelFailure(t *testing.T) {
	es := phraseEntries()
	out, _, err := Phrase(context.Background(), &fakeModel{err: errors.New("connection refused")}, es)
	if err == nil || len(out) != len(es) {
		t.Fatalf("a failing model: %v, %d entries of %d", err, len(out), len(es))
	}
}

func hasText(es []Entry, text string) bool {
	for _, e := range es {
		if e.Text == text {
			return true
		}
	}
	return false
}

// TestIntegrationPhraseOllama: the real Ollama test server (a tiny model that writes gibberish):
// whatever it answers, every statement after the pass stands on its sources' words.
func TestIntegrationPhraseOllama(t *testing.T) {
	url, model := os.Getenv("CTXC_TEST_OLLAMA_URL"), os.Getenv("CTXC_TEST_OLLAMA_MODEL")
	if url == "" || model == "" {
		t.Skip("CTXC_TEST_OLLAMA_URL/MODEL not set")
	}
	c, err := llm.NewOllama(llm.OllamaConfig{Endpoint: url, Model: model})
	if err != nil {
		t.Fatal(err)
	}
	es := phraseEntries()
	out, rep, err := Phrase(context.Background(), cappedClient{c, tinyModelMaxOut}, es)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines from the model, %d accepted", rep.Lines, rep.Accepted)
	all := strings.ToLower(joinTexts(es))
	for _, e := range out {
		for _, term := range terms(e.Text) {
			if !strings.Contains(strings.Join(terms(all), " "), term) {
				t.Errorf("entry %q says %q that no statement said", e.Text, term)
			}
		}
	}
	if !hasText(out, "go test -race ./...") || len(out) < 3 {
		t.Errorf("entries after the pass: %+v", out)
	}
}

// tinyModelMaxOut caps the test server's replies below Ollama's repeat limit: its random-weight
// model often falls into one token repeated, and past about 30 repeats the server aborts the
// reply and sends it without done:true, which Phrase rightly reports as a failed model (the CLI
// then keeps the entries as extracted, with a warning). How soon the loop starts varies with the
// server's load, so a cap above the limit made this test pass or fail by chance.
const tinyModelMaxOut = 24

// cappedClient lowers every call's output cap to max.
type cappedClient struct {
	llm.Client
	max int
}

func (c cappedClient) Complete(ctx context.Context, msgs []llm.Message, opts llm.Options) (llm.Reply, error) {
	opts.MaxTokens = min(opts.MaxTokens, c.max)
	return c.Client.Complete(ctx, msgs, opts)
}

func joinTexts(es []Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Text + "\n")
	}
	return b.String()
}

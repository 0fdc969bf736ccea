package compact

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/transcript"
)

// gibberish is a summarizer whose every reply is well-formed noise, like a tiny random-weight
// model: the ledger and its audit must do all the work.
type gibberish struct{ calls int }

func (g *gibberish) Provider() string                        { return "ollama" }
func (g *gibberish) Model() string                           { return "noise" }
func (g *gibberish) Window(ctx context.Context) (int, error) { return 32768, nil }
func (g *gibberish) Complete(context.Context, []llm.Message, llm.Options) (llm.Reply, error) {
	g.calls++
	return llm.Reply{Text: "quorble fent ax \u00e9liq tramm ossu vek " + strings.Repeat("blin ", g.calls%7), DoneReason: "stop"}, nil
}

// segment is the turns a generated agent appends between two compactions: the user sets a rule
// and asks for work, the agent writes and edits files and runs a command.
func segment(k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"role":"user","content":"Segment %d: never edit vendor/seg%d, always run make test%d before committing. Issue https://tracker.example.com/T-%d"}`+"\n", k, k, k, k)
	filler := strings.Repeat("output line of the build; ", 200)
	for i := range 3 {
		id := fmt.Sprintf("s%d_c%d", k, i)
		if i > 0 {
			fmt.Fprintf(&b, `{"role":"user","content":"Go on with part %d of segment %d."}`+"\n", i, k)
		}
		tool, args := "write", fmt.Sprintf(`{\"path\":\"seg%d/file%d.go\",\"content\":\"package x\"}`, k, i)
		if i == 1 {
			tool, args = "Edit", fmt.Sprintf(`{\"file_path\":\"seg%d/edit%d.go\",\"old_string\":\"a\",\"new_string\":\"b\"}`, k, i)
		}
		fmt.Fprintf(&b, `{"role":"assistant","content":"Working on part %d of segment %d.","tool_calls":[{"id":"%s","type":"function","function":{"name":"%s","arguments":"%s"}}]}`+"\n", i, k, id, tool, args)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"%s","content":"%s"}`+"\n", id, filler)
	}
	fmt.Fprintf(&b, `{"role":"assistant","content":"Segment %d done."}`+"\n", k)
	return b.String()
}

// contextText is everything the reloaded context shows the model, and the summary's tokens.
func contextText(t *testing.T, path string) (string, int) {
	t.Helper()
	_, msgs, err := transcript.LoadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sum := 0
	for _, m := range msgs {
		for _, bl := range m.Blocks {
			b.WriteString(bl.Text + bl.Args + "\n")
		}
		if m.Summary {
			sum += estimate.Tokens(strings.TrimPrefix(m.TextContent(), transcript.SummaryPreamble))
		}
	}
	return strings.ReplaceAll(b.String(), `\"`, `"`), sum
}

// TestTenCompactions: a session keeps growing and is compacted in place ten times; the rules
// and modified files of the first segment are still in the context at the end, and every
// summary stays within its target, with the extractive summarizer and with a model that writes
// noise.
func TestTenCompactions(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    llm.Client
	}{{"extractive", nil}, {"gibberish", &gibberish{}}} {
		t.Run(tc.name, func(t *testing.T) {
			const target = 1500
			path := writeOld(t, "grow.jsonl", `{"role":"system","content":"You are a coding agent."}`+"\n"+
				`{"role":"user","content":"Build the service in ./svc."}`+"\n"+segment(0))
			o := Options{Threshold: 5000, Target: target, Zones: ZoneOptions{KeepTail: 4}, Now: testNow, Force: true, Client: tc.c}
			for k := 1; k <= 10; k++ {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(segment(k))
				f.Close()
				out, err := File(context.Background(), path, o)
				if err != nil {
					t.Fatalf("round %d: %v", k, err)
				}
				if out.Status != StatusCompacted {
					t.Fatalf("round %d: %s (%s)", k, out.Status, out.Reason)
				}
				if out.Ledger == nil || out.Ledger.Facts == 0 || out.Ledger.ByCat[ledger.Rule].Dropped+out.Ledger.ByCat[ledger.Modified].Dropped != 0 {
					t.Fatalf("round %d: ledger %+v", k, out.Ledger)
				}
				if _, sum := contextText(t, path); sum > target {
					t.Errorf("round %d: summary of %d tokens > target %d", k, sum, target)
				}
			}
			text, _ := contextText(t, path)
			for _, want := range []string{
				"Segment 0: never edit vendor/seg0, always run make test0 before committing.",
				"seg0/file0.go", "seg0/edit1.go", "seg0/file2.go", "seg4/edit1.go", "seg10/file2.go",
				"https://tracker.example.com/T-0",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("%q lost after ten compactions", want)
				}
			}
			if tc.c != nil && tc.c.(*gibberish).calls == 0 {
				t.Error("the model was never called")
			}
		})
	}
}

// TestMarkerLedger: the marker records the audit's counts; with a model that writes noise,
// every fact is carried.
func TestMarkerLedger(t *testing.T) {
	path := writeOld(t, "m.jsonl", `{"role":"user","content":"Start."}`+"\n"+segment(0)+segment(1))
	out, err := File(context.Background(), path, Options{Threshold: 3000, Target: 800, Zones: ZoneOptions{KeepTail: 2}, Now: testNow, Force: true, Client: &gibberish{}})
	if err != nil || out.Status != StatusCompacted {
		t.Fatalf("%v %+v", err, out)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var marker string
	for _, l := range lines {
		if strings.HasPrefix(l, `{"compact":`) {
			marker = l
		}
	}
	r := out.Ledger
	want := fmt.Sprintf(`"ledger":{"facts":%d,"present":0,"carried":%d,"dropped":0}`, r.Facts, r.Facts)
	if r.Facts < 8 || !strings.Contains(marker, want) {
		t.Errorf("marker lacks %s:\n%s", want, marker)
	}
	if !strings.Contains(marker, `quorble`) || !strings.Contains(marker, ledger.CarriedTitle) {
		t.Errorf("summary is not the model's text plus the carried section:\n%s", marker)
	}
}

// formModel writes what the prompt asks for, in the form the audit reads back: the user's
// rules quoted whole, the modified paths first on their bullets.
type formModel struct{ sawForm bool }

var (
	ruleRe = regexp.MustCompile(`Segment \d+: never edit vendor/seg\d+, always run make test\d+ before committing\. Issue https://tracker\.example\.com/T-\d+`)
	pathRe = regexp.MustCompile(`seg\d+/(?:file|edit)\d+\.go`)
)

func (m *formModel) Provider() string                        { return "ollama" }
func (m *formModel) Model() string                           { return "form" }
func (m *formModel) Window(ctx context.Context) (int, error) { return 32768, nil }
func (m *formModel) Complete(_ context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	system, user := msgs[0].Content, msgs[1].Content
	m.sawForm = m.sawForm || strings.Contains(system, "## Files modified") && strings.Contains(system, "double quotes")
	var b strings.Builder
	b.WriteString("## Goal\n- build the service\n## User rules and preferences\n")
	seen := map[string]bool{}
	for _, r := range ruleRe.FindAllString(user, -1) {
		if !seen[r] {
			seen[r] = true
			b.WriteString("- \"" + r + "\"\n")
		}
	}
	b.WriteString("## Files modified\n")
	for _, p := range pathRe.FindAllString(user, -1) {
		if !seen[p] {
			seen[p] = true
			b.WriteString("- `" + p + "`: changed\n")
		}
	}
	return llm.Reply{Text: b.String(), DoneReason: "stop"}, nil
}

// TestPresentNotCarried: a model that follows the prompt's form gets its facts counted as
// present, and the audit carries only what it left out (here the user's URLs and requests).
func TestPresentNotCarried(t *testing.T) {
	path := writeOld(t, "p.jsonl", `{"role":"user","content":"Start."}`+"\n"+segment(0)+segment(1))
	m := &formModel{}
	out, err := File(context.Background(), path, Options{Threshold: 3000, Target: 1500, Zones: ZoneOptions{KeepTail: 2}, Now: testNow, Force: true, Client: m})
	if err != nil || out.Status != StatusCompacted {
		t.Fatalf("%v %+v", err, out)
	}
	if !m.sawForm {
		t.Error("the prompt does not ask for the ledger's form")
	}
	for _, c := range []ledger.Category{ledger.Rule, ledger.Modified} {
		if n := out.Ledger.ByCat[c]; n.Facts == 0 || n.Present != n.Facts || n.Carried != 0 {
			t.Errorf("%s: %+v", c, n)
		}
	}
	if r := out.Ledger.ByCat[ledger.Ref]; r.Facts == 0 || r.Carried != r.Facts {
		t.Errorf("refs: %+v", r)
	}
}

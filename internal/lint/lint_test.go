package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestLintFixtures: each hand-made fixture holds known problems at known lines.
func TestLintFixtures(t *testing.T) {
	want := map[string][]string{
		"claude-broken-chain.jsonl": {"3 " + ProblemBrokenChain},
		"claude-late-result.jsonl":  {"5 " + ProblemResultOrder},
		"claude-open-call.jsonl":    {"2 " + ProblemOpenCall},
		"codex-open-call.jsonl":     {"3 " + ProblemOpenCall},
		"codex-orphan-result.jsonl": {"5 " + ProblemOrphanResult},
		"codex-two-summaries.jsonl": {"3 " + ProblemNestedSummary},
		"pi-open-call.jsonl":        {"3 " + ProblemOpenCall},
		"pi-duplicate-id.jsonl":     {"5 " + ProblemDuplicateID},
		"openai-problems.jsonl": {"1 " + ProblemAssistantFirst, "3 " + ProblemOpenCall, "5 " + ProblemOrphanResult,
			"7 " + ProblemDuplicateID},
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "lint", "*.jsonl"))
	if len(files) != len(want) {
		t.Fatalf("%d fixtures, %d expected", len(files), len(want))
	}
	for _, f := range files {
		probs, _, err := File(f, transcript.FormatUnknown)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range probs {
			got = append(got, fmt.Sprintf("%d %s", p.Line, p.Kind))
			if p.Path != f || p.Msg == "" {
				t.Errorf("%s: %+v", f, p)
			}
		}
		if w := want[filepath.Base(f)]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s: %v, want %v", filepath.Base(f), got, w)
		}
	}
}

// TestLintCleanSamples: nothing in the samples and fixtures that the agents resume cleanly
// (cmd/agents_test.go), nor in what compaction writes.
func TestLintCleanSamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "samples", "*", "*.jsonl"))
	if len(samples) == 0 {
		t.Log("../shared/samples absent: fixtures only")
	}
	for _, f := range append(files, samples...) {
		if strings.Contains(f, "bom-crlf-bad") {
			continue // not a session
		}
		if strings.Contains(f, "gemini-0.61-tool-resumed") {
			continue // Gemini CLI itself sends its call's result twice (docs/formats.md): lint says so
		}
		if strings.Contains(f, "qwen-0.24-own-compression") {
			continue // the call Qwen Code's compression left open: lint says so; Qwen Code answers it itself on resume
		}
		probs, _, err := File(f, transcript.FormatUnknown)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range probs {
			t.Errorf("%s", p)
		}
	}
}

// TestRepair: every fixture whose problems are calls and results that do not pair up is
// repaired by appending (the bytes before stay), lint then finds nothing, the context keeps
// every message, and a second repair has nothing to do. A -o copy is repaired the same way.
func TestRepair(t *testing.T) {
	for _, name := range []string{"claude-open-call", "claude-late-result", "codex-open-call", "codex-orphan-result", "pi-open-call"} {
		for _, out := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/o=%v", name, out), func(t *testing.T) {
				orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lint", name+".jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				p := filepath.Join(dir, name+".jsonl")
				os.WriteFile(p, orig, 0o644)
				_, before, _ := transcript.LoadFile(p, transcript.Options{})
				o := RepairOptions{Now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
				target := p
				if out {
					o.Output = filepath.Join(dir, "fixed.jsonl")
					target = o.Output
				}
				res, err := Repair(p, o)
				if err != nil {
					t.Fatal(err)
				}
				if res.Data == nil || res.Records == 0 || len(res.Left) != 0 {
					t.Fatalf("repair: %+v", res)
				}
				if res.Placeholders+res.Moved+res.Dropped == 0 {
					t.Errorf("nothing counted: %+v", res.RepairPlan)
				}
				b, _ := os.ReadFile(target)
				if !bytes.HasPrefix(b, orig) {
					t.Fatal("bytes before the repair changed")
				}
				if out {
					if now, _ := os.ReadFile(p); !bytes.Equal(now, orig) {
						t.Fatal("-o changed the source")
					}
				}
				if probs, _, _ := File(target, transcript.FormatUnknown); len(probs) != 0 {
					t.Errorf("after repair: %v", probs)
				}
				_, after, err := transcript.LoadFile(target, transcript.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if convText(before) != convText(after) {
					t.Errorf("conversation text changed:\n%s\n%s", convText(before), convText(after))
				}
				again, err := Repair(target, RepairOptions{})
				if err != nil || again.Data != nil {
					t.Errorf("second repair: %+v %v", again, err)
				}
			})
		}
	}
}

// convText is the user and assistant text of a context, in order.
func convText(ms []transcript.Message) string {
	var b strings.Builder
	for _, m := range ms {
		if m.Role == transcript.RoleUser || m.Role == transcript.RoleAssistant {
			if t := m.TextContent(); t != "" {
				fmt.Fprintf(&b, "%s: %s\n", m.Role, t)
			}
		}
	}
	return b.String()
}

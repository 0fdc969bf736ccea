package expand

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestExpandAgentCompactions: an agent's own compaction (Claude Code, Codex, pi, Gemini CLI,
// Qwen Code, Copilot CLI, droid) is expanded from the history in its file: the messages it
// replaced, none that the context after it still holds, their lines those grep says the
// compaction covered (two readings of the file that must agree), and the file's lines byte for
// byte.
func TestExpandAgentCompactions(t *testing.T) {
	fixtures := []string{"claude-compact-boundary.jsonl", "codex-replacement-history.jsonl",
		"codex-legacy-compacted.jsonl", "pi-v1-two-compactions.jsonl", "gemini-compressed.jsonl", "qwen-branch-compression.jsonl",
		"qwen-0.24-own-compression.jsonl", "copilot-compacted.jsonl", "droid-compacted.jsonl"}
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "fixtures", name)
			spans, format, err := Spans(path, transcript.FormatUnknown)
			if err != nil {
				t.Fatal(err)
			}
			if len(spans) == 0 {
				t.Fatal("no compaction found")
			}
			covered := coveredLines(t, path)
			for i, sp := range spans {
				if !sp.Agent || sp.SHA256 != "" {
					t.Fatalf("compaction at line %d: %+v, want the agent's own", sp.Marker, sp)
				}
				ex, err := At(path, i+1, transcript.FormatUnknown)
				if err != nil {
					t.Fatalf("--marker %d: %v", i+1, err)
				}
				_, after, err := transcript.LoadFileUpTo(path, sp.End, transcript.Options{Format: format})
				if err != nil {
					t.Fatal(err)
				}
				var lines []int
				for _, m := range ex.Messages {
					for _, a := range after {
						if a.Line == m.Line && a.TextContent() == m.TextContent() {
							t.Errorf("--marker %d: line %d is still in the context after the compaction", i+1, m.Line)
						}
					}
					for _, s := range m.Sources() {
						if !m.Summary && !slices.Contains(lines, int(s.Line)) {
							lines = append(lines, int(s.Line))
						}
					}
				}
				// grep says of each of these lines that it has a message, that this compaction
				// covered (grep counts messages a compaction carried over as copies as covered
				// too: expand leaves them out, the context after it holds them).
				for _, line := range lines {
					if by, ok := covered[line]; ok && by != sp.Marker {
						t.Errorf("--marker %d (line %d): expanded line %d, which grep says compaction %d covered", i+1, sp.Marker, line, by)
					}
				}
				if len(ex.Lines) == 0 || ex.From == 0 || ex.To < ex.From {
					t.Errorf("--marker %d: %d lines, from %d to %d", i+1, len(ex.Lines), ex.From, ex.To)
				}
			}
		})
	}
}

// coveredLines is what grep --json says of each line holding a message: the compaction that
// covered it (0: none).
func coveredLines(t *testing.T, path string) map[int]int {
	t.Helper()
	p, err := grep.Compile(`(?s).`, false, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	err = grep.File(path, p, grep.Options{Indexed: true}, func(h grep.Hit) error {
		if !h.Summary {
			out[h.Line] = h.CoveredBy
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExpandNothing: a file without a compaction is bad data for expand, and a marker past the
// last is an error that says how many there are.
func TestExpandNothing(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "fixtures", "openai-tools.jsonl")
	_, err := At(path, 0, transcript.FormatUnknown)
	var de *transcript.DataError
	if !errors.As(err, &de) || de.Msg != "no compaction to expand" {
		t.Fatalf("err %v", err)
	}
	if _, err := At(filepath.Join("..", "..", "testdata", "fixtures", "claude-compact-boundary.jsonl"), 5, transcript.FormatUnknown); err == nil {
		t.Fatal("--marker 5 of a file with one compaction")
	}
}

package grep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// benchClaudeFile writes a Claude Code session of about size bytes: tool results as
// benchRecord has them (the pattern "context.Context" in each) between short user and
// assistant messages (without it), and returns its path.
func benchClaudeFile(b *testing.B, size int) string {
	b.Helper()
	var s strings.Builder
	for i := 0; s.Len() < size; i++ {
		fmt.Fprintf(&s, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"step %d: run the build"},"uuid":"u%d","timestamp":"2025-06-01T09:00:41.070Z"}`+"\n", i, i)
		fmt.Fprintf(&s, `{"parentUuid":"u%d","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Running step %d."},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go build ./..."}}]},"uuid":"a%d","timestamp":"2025-06-01T09:00:42.070Z"}`+"\n", i, i, i, i)
		s.WriteString(benchRecord)
		s.WriteByte('\n')
	}
	p := filepath.Join(b.TempDir(), "bench.jsonl")
	if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// benchFile searches a file of the benchmark session for pattern, b.N times, and checks that it
// found hits.
func benchFile(b *testing.B, path, pattern string, fixed bool, opts Options) {
	p, err := Compile(pattern, fixed, false)
	if err != nil {
		b.Fatal(err)
	}
	p.WithoutHighlights()
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	for b.Loop() {
		hits := 0
		if err := File(path, p, opts, func(Hit) error { hits++; return nil }); err != nil {
			b.Fatal(err)
		}
		if hits == 0 {
			b.Fatal("no hit")
		}
	}
}

// BenchmarkFileClaude: a Claude Code session searched as grep searches it, on the fast path
// (the prefilter, then claudeLine on the lines it picks); a third of the lines are hits.
func BenchmarkFileClaude(b *testing.B) {
	benchFile(b, benchClaudeFile(b, 16<<20), "context.Context", false, Options{})
}

// BenchmarkFileClaudeRare: the same session and a pattern in one line of three, but not in
// the tool outputs that make up most of the bytes.
func BenchmarkFileClaudeRare(b *testing.B) {
	benchFile(b, benchClaudeFile(b, 16<<20), "go build", true, Options{})
}

// BenchmarkFileClaudeDecodeAll: BenchmarkFileClaude with DecodeAllEnv set: every line decoded.
func BenchmarkFileClaudeDecodeAll(b *testing.B) {
	b.Setenv(DecodeAllEnv, "1")
	benchFile(b, benchClaudeFile(b, 16<<20), "context.Context", false, Options{})
}

// BenchmarkClaudeLine: claudeLine alone on the benchmark's tool result (a hit), the line
// walked as the prefilter's caller walks it.
func BenchmarkClaudeLine(b *testing.B) {
	p, err := Compile("context.Context", false, false)
	if err != nil {
		b.Fatal(err)
	}
	p.WithoutHighlights()
	g := &grepper{path: "x.jsonl", p: p, format: transcript.FormatClaude}
	line := []byte(benchRecord + "\n")
	at := strings.Index(benchRecord, "context")
	var sc lineScratch
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		end := g.shapeIn(line, 0, at, &sc)
		if h, ok := g.claudeLine(line[:end], &sc); !ok || h == nil {
			b.Fatal("no hit")
		}
		sc.walked, sc.litKnown = false, false
	}
}

package grep

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// benchRecord is a Claude Code tool result as the generated benchmark file has them: a few
// dozen short members around one tool output, twice.
var benchRecord = func() string {
	out := strings.Repeat(`     4\tfunc return(ctx context.Context) error {\n2025-06-01T12:00:00Z INFO request id=8a00c99c path=\"/api/compile\" status=200 dur=840ms\n     7\t\tcafé stream run are build an as session.\n`, 8)
	return `{"parentUuid":"edfb0734-23eb-483c-a3c8-f44754e0c0c1","isSidechain":false,"userType":"external","cwd":"/home/dev/proj","sessionId":"9acb0442-9a0f-4dc7-84bb-858149c6e2d1","version":"1.0.83","gitBranch":"main","type":"user","message":{"content":[{"content":"` +
		out + `","is_error":false,"tool_use_id":"toolu_01000000760b0d22050143a6","type":"tool_result"}],"role":"user"},"toolUseResult":{"interrupted":false,"stderr":"","stdout":"` +
		out + `"},"uuid":"6c6dfac0-75c8-47eb-b52e-b8e5d22bd743","timestamp":"2025-06-01T09:00:41.070Z"}`
}()

func BenchmarkLineShape(b *testing.B) {
	spelled := func(byte) bool { return false }
	var nodes []node
	b.SetBytes(int64(len(benchRecord)))
	for b.Loop() {
		var ok bool
		nodes, _, _, ok = lineShape(benchRecord, nodes[:0], spelled)
		if !ok {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkSearchLine: all that grep does with a line the prefilter picked, but finding it
// (the benchmark file's most common line, a hit).
func BenchmarkSearchLine(b *testing.B) {
	p, err := Compile("context.Context", false, false)
	if err != nil {
		b.Fatal(err)
	}
	p.WithoutHighlights()
	g := &grepper{path: "x.jsonl", p: p, format: transcript.FormatClaude}
	line := []byte(benchRecord + "\n")
	var sc lineScratch
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		end := g.shapeIn(line, 0, strings.Index(benchRecord, "context"), &sc)
		if ev := g.searchLine(line[:end], 1, nil, &sc); len(ev) != 1 {
			b.Fatal("no hit")
		}
		sc.walked, sc.litKnown = false, false
	}
}

// TestLitIn: where the prefilter found a line's first occurrence of the literal, litIn gives,
// for every value of the line, what a search of the value gives (the first occurrence in it,
// or none), for literals at a value's very start and end.
func TestLitIn(t *testing.T) {
	lines := []string{
		`{"a":"x Context y","b":["Context",{"c":"Context"}],"d":"Context"}`,
		`{"a":[1,2],"b":[1,2,[1,2]],"c":"[1,2"}`,
		`{"a":"no","b":{"c":":12","d":12},"e":"end :12"}`,
		`{"k":"ab","l":[{"m":"abab"}],"n":"b a"}`,
	}
	for _, tc := range []struct{ pattern, line string }{
		{"Context", lines[0]}, {`\[1,2`, lines[1]}, {"1,2]", lines[1]}, {":12", lines[2]}, {"bab", lines[3]}, {"abab", lines[3]},
	} {
		p, err := Compile(tc.pattern, false, false)
		if err != nil || p.lit == nil {
			t.Fatalf("%q: %v (literal %q)", tc.pattern, err, p.lit)
		}
		g := &grepper{p: p, format: transcript.FormatClaude}
		b := []byte(tc.line + "\n")
		first := p.nextLit(b, 0)
		var sc lineScratch
		if g.shapeIn(b, 0, first, &sc) < 0 || !sc.litKnown || sc.lit != first {
			t.Fatalf("%s: the line's first occurrence (%d) is not known", tc.line, first)
		}
		for _, n := range sc.nodes {
			raw := sc.line[n.start:n.end]
			if got, want := g.litIn(raw, &sc), p.nextLit([]byte(raw), 0); got != want {
				t.Errorf("%q in %s: litIn %d, a search %d", tc.pattern, raw, got, want)
			}
		}
	}
}

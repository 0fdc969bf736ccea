package transcript

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// codexBenchFixtures are the rollouts whose lines make up the benchmarks' Codex input: every
// kind of response item (messages, reasoning, function, custom and local shell calls, web
// searches, outputs), events and turn context.
var codexBenchFixtures = []string{
	"../../testdata/fixtures/codex-replacement-history.jsonl",
	"../../testdata/fixtures/codex-long-tools.jsonl",
}

// codexBenchRollout is a Codex rollout of at least size bytes: the fixtures' lines but for
// their session_meta and compacted ones, once or more after one session_meta line.
func codexBenchRollout(b *testing.B, size int) []byte {
	var body []string
	for _, p := range codexBenchFixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(data), "\n") {
			if l == "" || strings.Contains(l, `"type":"session_meta"`) || strings.Contains(l, `"type":"compacted"`) {
				continue
			}
			body = append(body, l)
		}
	}
	var out bytes.Buffer
	out.WriteString(`{"timestamp":"t","type":"session_meta","payload":{"id":"bench","timestamp":"t"}}` + "\n")
	for {
		for _, l := range body {
			out.WriteString(l)
		}
		if out.Len() >= size {
			return out.Bytes()
		}
	}
}

// BenchmarkScanCodex measures the sequential reader on a Codex rollout of about 8 MB (the
// per-line work of ctxc stats on Codex files: envelopes, response items, token counts).
func BenchmarkScanCodex(b *testing.B) {
	data := codexBenchRollout(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanLines(bytes.NewReader(data), "codex", Options{Format: FormatCodex}); err != nil {
			b.Fatal(err)
		}
	}
}

package codex

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// codexBenchFixtures are the rollouts whose lines make up the benchmarks' Codex input: every
// kind of response item (messages, reasoning, function, custom and local shell calls, web
// searches, outputs), events and turn context.
var codexBenchFixtures = []string{
	"../../../testdata/fixtures/codex-replacement-history.jsonl",
	"../../../testdata/fixtures/codex-long-tools.jsonl",
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

// BenchmarkCodexItemMessage measures the parse of the fixtures' response items into messages,
// counts only (stats) and with their text (a load).
func BenchmarkCodexItemMessage(b *testing.B) {
	var items []jsonl.Value
	var size int64
	for _, l := range bytes.Split(codexBenchRollout(b, 0), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		typ, payload, _ := codexEnvelope(jsonl.Value(l))
		if typ == "response_item" {
			items = append(items, payload)
			size += int64(len(payload))
		}
	}
	for _, tc := range []struct {
		name string
		text conv.TextMode
	}{{"noText", conv.NoText}, {"withText", conv.WithText}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, it := range items {
					codexItemMessage(it, tc.text)
				}
			}
		})
	}
}

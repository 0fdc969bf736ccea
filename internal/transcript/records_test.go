package transcript

import (
	"os"
	"strings"
	"testing"
)

// TestCompactionRecords: every compaction of a file is located, with the span of its records:
// the file up to Start holds the context it replaced, up to End the context right after it.
func TestCompactionRecords(t *testing.T) {
	tests := []struct {
		file  string
		lines []int
		// endsBefore: the text the line right after each record starts with ("": the record
		// runs to the end of the file).
		endsBefore []string
	}{
		{"../../testdata/fixtures/pi-v1-two-compactions.jsonl", nil, nil},
		{"../../testdata/fixtures/codex-replacement-history.jsonl", nil, nil},
		{"../../testdata/fixtures/claude-compact-boundary.jsonl", nil, nil},
		{"../../testdata/fixtures/claude-2.1.330-manual-compact-hook.jsonl", []int{93}, []string{""}},
		{"../../testdata/fixtures/codex-0.169-guarded-compact.jsonl", []int{27}, []string{`{"timestamp":"2026-11-25T02:41:58.284Z","type":"response_item","payload":{"type":"message","id":"msg_01a21094-d20c`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			res, err := scanLines(strings.NewReader(string(data)), tt.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stats
			if len(st.Records) != st.Compactions+st.Markers || len(st.Records) == 0 {
				t.Fatalf("%d records for %d compactions and %d markers", len(st.Records), st.Compactions, st.Markers)
			}
			lines := strings.SplitAfter(string(data), "\n")
			offset := func(n int) int64 { // first byte of line n (1-based)
				o := 0
				for _, l := range lines[:n-1] {
					o += len(l)
				}
				return int64(o)
			}
			for i, r := range st.Records {
				if r.Start != offset(r.Line) {
					t.Errorf("record %d at line %d: start %d, want %d", i, r.Line, r.Start, offset(r.Line))
				}
				if r.End <= r.Start || (i+1 < len(st.Records) && r.End > st.Records[i+1].Start) {
					t.Errorf("record %d: end %d out of [%d, next start]", i, r.End, r.Start)
				}
				if tt.lines != nil && r.Line != tt.lines[i] {
					t.Errorf("record %d at line %d, want %d", i, r.Line, tt.lines[i])
				}
				if tt.endsBefore != nil && tt.endsBefore[i] == "" && r.End != int64(len(data)) {
					t.Errorf("record %d ends at %d, want the end of the file (%d)", i, r.End, len(data))
				}
				if tt.endsBefore != nil && !strings.HasPrefix(string(data[r.End:]), tt.endsBefore[i]) {
					t.Errorf("record %d ends before %.60q, want %q", i, data[r.End:], tt.endsBefore[i])
				}
			}
		})
	}
}

package ledger

import "testing"

// TestAssembleNothingMissing: when the summary's own text holds every fact, it is the whole
// result, and it is refused ("") when it exceeds the limit, so that Audit cuts it instead.
func TestAssembleNothingMissing(t *testing.T) {
	lines := []string{"## Files modified", "- `a.go`"}
	facts := prepare([]Fact{{Cat: Modified, Text: "a.go"}})
	tests := []struct {
		limit int
		want  string
	}{
		{100, "## Files modified\n- `a.go`"},
		{26, "## Files modified\n- `a.go`"},
		{25, ""},
	}
	for _, tt := range tests {
		got, rep, dropped := assemble(lines, len(lines), facts, tt.limit)
		if got != tt.want || rep.Present != 1 || rep.Carried != 0 || dropped != 0 {
			t.Errorf("assemble(limit %d) = %q, %+v, %d dropped; want %q, 1 present", tt.limit, got, rep.Counts, dropped, tt.want)
		}
	}
}

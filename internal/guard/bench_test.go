package guard

import (
	"os"
	"testing"
)

// BenchmarkNote makes the hook's note for the session file named by CTXC_BENCH_FILE (e.g. the
// file of scripts/bench-hook.sh): go test -bench Note -cpuprofile cpu.out ./internal/guard/
func BenchmarkNote(b *testing.B) {
	path := os.Getenv("CTXC_BENCH_FILE")
	if path == "" {
		b.Skip("CTXC_BENCH_FILE not set")
	}
	for b.Loop() {
		if _, err := noteFor(path, "", DefaultBudget, false, false); err != nil {
			b.Fatal(err)
		}
	}
}

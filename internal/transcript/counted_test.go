package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScanCountedAddsUpToStats: the messages ScanCounted lists are those stats counts, by role,
// and their tokens add up to the history's estimate, for every fixture (split Claude Code
// responses, rewritten Gemini CLI records, subagent files, every compaction kind).
func TestScanCountedAddsUpToStats(t *testing.T) {
	files, err := filepath.Glob("../../testdata/fixtures/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	if samples, _ := filepath.Glob("../../../shared/samples/*/*.jsonl"); len(samples) > 0 {
		files = append(files, samples...)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			res, counted, err := ScanCounted(path, Options{})
			if err != nil {
				t.Skipf("not a session: %v", err)
			}
			st := res.Stats
			var roles RoleCounts
			var tokens int64
			for _, c := range counted {
				roles.Add(c.Role)
				tokens += int64(c.Tokens)
			}
			if roles != st.Messages {
				t.Errorf("roles %+v, stats %+v", roles, st.Messages)
			}
			if tokens != st.Tokens {
				t.Errorf("tokens %d, stats %d", tokens, st.Tokens)
			}
		})
	}
}

// TestScanCountedLargeFileInOnePass: a file large enough for ScanFile's ranges is read in one
// pass when the messages are wanted, and they still add up.
func TestScanCountedLargeFileInOnePass(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	line := `{"role":"user","content":"` + string(make([]byte, 0)) + `hello there, a longer message to fill the file quickly with text"}` + "\n"
	data := make([]byte, 0, minRangesFile+len(line))
	for len(data) < minRangesFile+1 {
		data = append(data, line...)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, counted, err := ScanCounted(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(counted) != res.Stats.Messages.Total() || len(counted) == 0 {
		t.Fatalf("%d messages listed, stats %d", len(counted), res.Stats.Messages.Total())
	}
}

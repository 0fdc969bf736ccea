package transcript

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// loadTail runs loadClaudeTail over the whole file at path, from any boundary (from 0).
func loadTail(t *testing.T, path string) ([]Message, *Result, bool) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opts := Options{Windowed: true}
	res, msgs, ok, err := loadClaudeTail(io.NewSectionReader(f, 0, info.Size()), info.Size(), 0, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return msgs, res, ok
}

// TestLoadFromNewestCompactionIsTheWholeLoad: every Claude Code session of the fixtures, the
// labelled set and the samples that loadClaudeTail reads from its newest boundary gives the
// messages (text, lines, offsets) and the newest compaction record of the load of the whole file.
func TestLoadFromNewestCompactionIsTheWholeLoad(t *testing.T) {
	var files []string
	for _, g := range []string{"../../testdata/fixtures/claude*.jsonl", "../../testdata/audit-labels/claude*.jsonl", samplesDir + "/claude-code/*.jsonl"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	read := 0
	for _, path := range files {
		whole, wmsgs, err := LoadFile(path, Options{Windowed: true})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		msgs, res, ok := loadTail(t, path)
		if !ok {
			continue
		}
		read++
		if !reflect.DeepEqual(msgs, wmsgs) {
			t.Errorf("%s: %d messages from the newest boundary, %d from the whole file, or they differ", path, len(msgs), len(wmsgs))
		}
		wr, r := whole.Stats.Records, res.Stats.Records
		if len(wr) == 0 || !reflect.DeepEqual(r[len(r)-1], wr[len(wr)-1]) {
			t.Errorf("%s: newest compaction record %+v, the whole file's %+v", path, r, wr)
		}
	}
	if read < 3 {
		t.Fatalf("%d files read from their newest boundary, want at least 3", read)
	}
	t.Logf("%d of %d files read from their newest boundary", read, len(files))
}

// TestLoadFromNewestCompactionFallsBack: the files whose context reaches before the newest
// boundary are not read from it.
func TestLoadFromNewestCompactionFallsBack(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/fixtures/claude-compact-boundary.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// A branch from before the boundary: the newest message answers u1, the first request.
	branch := strings.TrimRight(string(data), "\n") + "\n" +
		`{"isSidechain":false,"type":"user","parentUuid":"u1","uuid":"z1","sessionId":"s","message":{"role":"user","content":"Back to the start."}}` + "\n"
	// A preserved record the file does not hold: the whole load does not relink either.
	preserved, err := os.ReadFile("../../testdata/fixtures/claude-preserved-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Replace(string(preserved), `"uuids":[`, `"uuids":["no-such-record",`, 1)
	if missing == string(preserved) {
		t.Fatal("no preserved uuids in claude-preserved-compaction.jsonl")
	}
	for name, text := range map[string]string{"branch.jsonl": branch, "missing.jsonl": missing} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := loadTail(t, path); ok {
			t.Errorf("%s: read from the newest boundary", name)
		}
		_, whole, err := LoadFile(path, Options{Windowed: true})
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := LoadFile(path, Options{Windowed: true, FromNewestCompaction: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("%s: FromNewestCompaction loads %d messages, the whole file %d", name, len(got), len(whole))
		}
	}
	if _, _, ok := loadTail(t, "../../testdata/fixtures/claude-long-tools.jsonl"); ok {
		t.Error("claude-long-tools.jsonl: read from a boundary it does not have")
	}
}

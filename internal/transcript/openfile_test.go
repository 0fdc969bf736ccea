package transcript

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFile: a session file opens with its size; a directory, a FIFO (without blocking) or a
// missing path is an error naming the path.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "s.jsonl")
	os.WriteFile(regular, []byte(`{"role":"user","content":"hi"}`+"\n"), 0o600)
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tc := range []struct {
		path, err string
		size      int64
	}{
		{path: regular, size: 31},
		{path: dir, err: "is a directory"},
		{path: fifo, err: "not a regular file"},
		{path: filepath.Join(dir, "missing.jsonl"), err: "no such file"},
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f, err := OpenFile(tc.path)
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("%s: %v", tc.path, err)
			case tc.err == "" && f.Info().Size() != tc.size:
				t.Errorf("%s: size %d, want %d", tc.path, f.Info().Size(), tc.size)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), tc.path)):
				t.Errorf("%s: error %v, want one naming the path and saying %q", tc.path, err, tc.err)
			}
			if f != nil {
				f.Close()
			}
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: OpenFile blocked", tc.path)
		}
	}
}

// TestScanFileSmallFileMemory: a small session file is scanned with a line buffer of its own
// size: stats of thousands of small sessions (a store's) cleared a fresh 1 MiB buffer for each.
func TestScanFileSmallFileMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n"
	os.WriteFile(path, []byte(strings.Repeat(line, 20)), 0o600)
	if _, err := ScanFile(path, Options{}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 20
	for range runs {
		if _, err := ScanFile(path, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 256<<10 {
		t.Errorf("a scan of a %d-byte file allocated %d bytes", 20*len(line), per)
	}
}

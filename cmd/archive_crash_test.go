package cmd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestArchiveCrashTrials kills `ctxc archive` with SIGKILL at random moments while the sessions
// it copies keep growing; after each kill a run to the end must leave archives that decode to
// the sessions exactly and that --verify accepts.
func TestArchiveCrashTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	bin := filepath.Join(t.TempDir(), "ctxc")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	src, dest := filepath.Join(dir, "sessions"), filepath.Join(dir, "backup")
	os.MkdirAll(filepath.Join(src, "proj"), 0o755)
	rng := rand.New(rand.NewPCG(1, 2))
	files := []string{filepath.Join(src, "proj", "a.jsonl"), filepath.Join(src, "proj", "b.jsonl"), filepath.Join(src, "c.jsonl")}
	const trials = 8
	killed := 0
	for trial := range trials {
		for _, f := range files {
			growSession(t, f, rng, 2<<20)
		}
		cmd := exec.Command(bin, "archive", "-q", src, dest)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
		cmd.Process.Kill()
		if err := cmd.Wait(); err != nil {
			killed++
		}
		if trial%2 == 1 { // half the trials: the next run completes what the killed one began
			runArchiveBin(t, bin, "archive", "-q", src, dest)
			checkArchives(t, bin, src, dest, files)
		}
	}
	if killed == 0 {
		t.Fatal("no run was killed before its end: the trials tested nothing")
	}
	t.Logf("%d of %d runs killed before their end", killed, trials)
}

// growSession appends about n bytes of complete lines, and a few bytes of an unfinished one.
func growSession(t *testing.T, p string, rng *rand.Rand, n int) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var b bytes.Buffer
	if st.Size() > 0 {
		b.WriteString("\"}\n") // finishes the unfinished line of the last growth
	}
	for b.Len() < n {
		fmt.Fprintf(&b, `{"role":"user","content":"%x %d"}`+"\n", rng.Uint64(), rng.IntN(1e9))
	}
	b.WriteString(`{"role":"assistant","content":"partial`)
	f.Write(b.Bytes())
}

func runArchiveBin(t *testing.T, bin string, args ...string) {
	t.Helper()
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("ctxc %v: %v\n%s", args, err, out)
	}
}

// checkArchives compares each archive with its session's complete lines and runs --verify.
func checkArchives(t *testing.T, bin, src, dest string, files []string) {
	t.Helper()
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Dir(src), f)
		z, err := os.ReadFile(filepath.Join(dest, rel+".zst"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.DecodeAll(z, nil)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		want, _ := os.ReadFile(f)
		want = want[:bytes.LastIndexByte(want, '\n')+1]
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: archive decodes to %d bytes, the session has %d in complete lines", rel, len(got), len(want))
		}
	}
	runArchiveBin(t, bin, "archive", "--verify", dest)
	old, _ := filepath.Glob(filepath.Join(dest, "sessions", "*.1.jsonl.zst"))
	deeper, _ := filepath.Glob(filepath.Join(dest, "sessions", "*", "*.1.jsonl.zst"))
	if old = append(old, deeper...); len(old) > 0 {
		t.Fatalf("a killed run made an old version: %v", old)
	}
}

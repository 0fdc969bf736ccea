package compact

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestCrashSafety starts `ctxc compact` on a copy of a transcript, kills it with SIGKILL at a
// random moment (from before it reads the file to after it appends), and checks that the file
// still loads, that every byte it had before is unchanged, and that at most one complete marker
// was added. CTXC_CRASH_TRIALS sets the number of trials (scripts/crashtest.sh); by default a
// handful run so that `go test` exercises the harness.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	trials := crashTrials(t, 8, 1)
	dir, bin := buildCtxc(t)
	// A session whose tail is large (a few MB of tool output), so that the append itself takes
	// long enough to be hit by the kill now and then.
	var b strings.Builder
	b.WriteString(openAISession(300))
	big := strings.Repeat("0123456789abcdef", 1<<15) // 512 KiB
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, `{"role":"assistant","content":"big %d","tool_calls":[{"id":"big%d","type":"function","function":{"name":"cat","arguments":"{}"}}]}`+"\n", i, i)
		fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"big%d","content":"%s"}`+"\n", i, big)
	}
	original := []byte(b.String())
	// How long an uninterrupted run takes, to spread the kills over it.
	probe := filepath.Join(dir, "probe.jsonl")
	os.WriteFile(probe, original, 0o644)
	start := time.Now()
	if out, err := exec.Command(bin, "compact", "--provider", "extractive", "--force", "--threshold", "500000", "--keep-tail", "4", probe).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	full := time.Since(start)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	killed, completed, withMarker, partial := 0, 0, 0, 0
	for i := 0; i < trials; i++ {
		p := filepath.Join(dir, fmt.Sprintf("t%d.jsonl", i))
		if err := os.WriteFile(p, original, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "compact", "--provider", "extractive", "--force", "--threshold", "500000", "--keep-tail", "4", p)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int63n(int64(full) + int64(full)/5))
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				killed++
			}
		} else if err == nil {
			completed++
		}
		switch checkAfterCrash(t, p, original) {
		case "marker":
			withMarker++
		case "partial":
			partial++
		}
		os.Remove(p)
		os.Remove(safewrite.LockPath(p))
	}
	t.Logf("%d trials: %d killed while running, %d finished first; %d files ended with a complete marker, %d with a cut-off append (pending last line); uninterrupted run %v; 0 failures",
		trials, killed, completed, withMarker, partial, full)
}

// checkAfterCrash returns "marker" when a complete marker was added, "partial" when the append
// was cut off (the file grew but ends in an unterminated line, which loading ignores), else "".
func checkAfterCrash(t *testing.T, p string, original []byte) string {
	t.Helper()
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, original) {
		t.Fatalf("%s: bytes that existed before changed", p)
	}
	res, msgs, err := transcript.LoadFile(p, transcript.Options{})
	if err != nil {
		t.Fatalf("%s does not load after the kill: %v", p, err)
	}
	full, err := transcript.Scan(bytes.NewReader(after), p, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Stats.Markers > 1 {
		t.Fatalf("%s: %d markers added", p, full.Stats.Markers)
	}
	if full.Stats.Markers == 1 && len(msgs) == 0 {
		t.Fatalf("%s: marker but empty context", p)
	}
	_ = res
	switch {
	case full.Stats.Markers == 1:
		return "marker"
	case len(after) > len(original):
		if !full.Stats.Pending {
			t.Fatalf("%s: grew without a marker and without a pending line", p)
		}
		return "partial"
	}
	return ""
}

// TestCrashSafetyNative is TestCrashSafety for the agents' own formats: ctxc compact is killed
// at a random moment on a Claude Code, Codex and pi session (whose last turn read a large log,
// so that the emergency level writes copies too), and the file must keep every byte it had,
// load, and hold at most one more compaction. What the agents themselves resume from every
// prefix of such an append is checked in cmd (TestAgentResumesAfterCrash).
func TestCrashSafetyNative(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	trials := crashTrials(t, 4, 4)
	dir, bin := buildCtxc(t)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	args := []string{"compact", "--provider", "extractive", "--force", "--threshold", "20000"}
	for name, content := range testsessions.Agent() {
		original := []byte(testsessions.HugeLastTurn(name, content))
		before, err := transcript.Scan(bytes.NewReader(original), name, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		probe := filepath.Join(dir, name+"-probe.jsonl")
		os.WriteFile(probe, original, 0o644)
		start := time.Now()
		if out, err := exec.Command(bin, append(args, probe)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: uninterrupted run: %v\n%s", name, err, out)
		}
		full := time.Since(start)
		done := 0
		for i := 0; i < trials; i++ {
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, i))
			os.WriteFile(p, original, 0o644)
			cmd := exec.Command(bin, append(args, p)...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rng.Int63n(int64(full) + int64(full)/5)))
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			after, _ := os.ReadFile(p)
			if !bytes.HasPrefix(after, original) {
				t.Fatalf("%s: bytes that existed before changed", p)
			}
			if _, _, err := transcript.LoadFile(p, transcript.Options{}); err != nil {
				t.Fatalf("%s does not load after the kill: %v", p, err)
			}
			res, err := transcript.Scan(bytes.NewReader(after), p, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n := res.Stats.Compactions - before.Stats.Compactions; n > 1 {
				t.Fatalf("%s: %d compactions added", p, n)
			} else if n == 1 {
				done++
			}
			os.Remove(p)
			os.Remove(safewrite.LockPath(p))
		}
		t.Logf("%s: %d trials, %d ended compacted, uninterrupted run %v; 0 failures", name, trials, done, full)
	}
}

// crashTrials is the number of trials: def, or CTXC_CRASH_TRIALS / div (scripts/crashtest.sh).
func crashTrials(t *testing.T, def, div int) int {
	t.Helper()
	s := os.Getenv("CTXC_CRASH_TRIALS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return max(n/div, 1)
}

// buildCtxc builds the ctxc binary into a temporary folder, to be killed as a process.
func buildCtxc(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = t.TempDir()
	bin = filepath.Join(dir, "ctxc")
	build := exec.Command("go", "build", "-o", bin, "github.com/ctxc/ctxc")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build: %v", err)
	}
	return dir, bin
}

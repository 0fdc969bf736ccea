package compact

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/testsessions"
)

// TestCutLastLine: compacting in place a session whose last line was cut short is refused
// before anything is summarized, the file byte for byte as it was; with RepairTail the cut bytes
// go into the file beside it and the compaction follows the last complete line; a compaction that
// fails after that puts them back.
func TestCutLastLine(t *testing.T) {
	const cut = `{"role":"user","content":"half a li`
	for name, content := range map[string]string{"openai": openAISession(40), "claude-code": testsessions.Agent()["claude-code"]} {
		t.Run(name, func(t *testing.T) {
			p := writeOld(t, "s.jsonl", content+cut)
			_, err := File(context.Background(), p, baseOptions())
			var pe *safewrite.PartialLineError
			if !errors.As(err, &pe) || pe.Offset != int64(len(content)) {
				t.Fatalf("got %v, want a PartialLineError at byte %d", err, len(content))
			}
			if mustRead(t, p) != content+cut {
				t.Fatal("the refused file changed")
			}

			// A compaction that fails after the cut line was moved aside puts it back.
			ctx, cancel := context.WithCancel(context.Background())
			o := baseOptions()
			o.RepairTail = true
			o.Client = slowCompleter{delay: time.Minute, onCall: cancel}
			if _, err := File(ctx, p, o); !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted: %v", err)
			}
			if mustRead(t, p) != content+cut {
				t.Fatal("an interrupted compaction did not put the cut line back")
			}
			if _, err := os.Stat(safewrite.TailAsidePath(p)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the aside file is left: %v", err)
			}

			o.Client = nil
			out, err := File(context.Background(), p, o)
			if err != nil || out.Status != StatusCompacted || out.TailAside != safewrite.TailAsidePath(p) {
				t.Fatalf("--repair-tail: %+v, %v", out, err)
			}
			after := mustRead(t, p)
			if after[:len(content)] != content || mustRead(t, out.TailAside) != cut {
				t.Fatal("the history before the cut line, or the cut line aside, is not byte for byte")
			}
			// Nothing of the cut line is left in the session: the append starts a line of its own.
			if got := load(t, p); len(got) == 0 {
				t.Fatal("the compacted session does not load")
			}
		})
	}
}

// TestCutLastLineOfALiveFile: a live file (forced) whose last line has no end has its agent in
// the middle of writing it: retry later, nothing written.
func TestCutLastLineOfALiveFile(t *testing.T) {
	content := openAISession(40) + `{"role":"user","content":"half`
	p := filepath.Join(t.TempDir(), "live.jsonl")
	os.WriteFile(p, []byte(content), 0o644)
	o := baseOptions()
	o.Force = true
	_, err := File(context.Background(), p, o)
	var be *safewrite.BusyError
	if !errors.As(err, &be) || be.Reason != safewrite.ReasonWriting {
		t.Fatalf("got %v, want busy: its last line is being written", err)
	}
	if mustRead(t, p) != content {
		t.Fatal("file changed")
	}
}

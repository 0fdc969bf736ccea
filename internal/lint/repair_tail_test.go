package lint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// TestRepairCutLastLine: a session whose last line was cut short is not appended to: the error
// names the file and the line and the file is byte for byte as it was; with RepairTail the cut
// bytes go into the file beside it and the repair records follow the last complete line.
func TestRepairCutLastLine(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "lint", "claude-open-call.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const cut = `{"type":"user","uuid":"x","message":{"role":"user","content":"half`
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, append(append([]byte{}, orig...), cut...), 0o644)
	_, err = Repair(p, RepairOptions{})
	var pe *safewrite.PartialLineError
	if !errors.As(err, &pe) || pe.Offset != int64(len(orig)) {
		t.Fatalf("got %v, want a PartialLineError at byte %d", err, len(orig))
	}
	if b, _ := os.ReadFile(p); string(b) != string(orig)+cut {
		t.Fatal("the refused file changed")
	}
	res, err := Repair(p, RepairOptions{RepairTail: true})
	if err != nil || res.Records == 0 || res.TailAside != safewrite.TailAsidePath(p) {
		t.Fatalf("RepairTail: %+v, %v", res, err)
	}
	b, _ := os.ReadFile(p)
	aside, _ := os.ReadFile(res.TailAside)
	if string(b[:len(orig)]) != string(orig) || string(aside) != cut {
		t.Fatal("the history before the cut line, or the cut line aside, is not byte for byte")
	}
	if len(res.Left) != 0 {
		t.Errorf("lint after the repair: %v", res.Left)
	}
}

package omp_test

import (
	"bytes"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/omp"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/transcript"
)

// The title slot ctxc writes at the top of a new omp session is as long as omp's (256 bytes with
// its line end), so that omp can rewrite a title in it in place, and tells the session as omp's.
func TestTitleSlotLength(t *testing.T) {
	line := omp.TitleSlot(&conv.Compaction{})
	if len(line) != omp.TitleSlotBytes || line[len(line)-1] != '\n' {
		t.Fatalf("title slot of %d bytes, want %d ending in a line end: %q", len(line), omp.TitleSlotBytes, line)
	}
	if f, err := transcript.Detect(bytes.NewReader(line), "title.jsonl", transcript.Options{}); f != conv.FormatOmp || err != nil {
		t.Errorf("Detect(title slot) = %q, %v", f, err)
	}
}

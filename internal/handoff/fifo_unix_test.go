//go:build unix

package handoff

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestSessionRefusesAPipe: a pipe given as the session (a FIFO, or bash's <(…), which names
// one) is refused as every reader refuses it, at once: opening it to check its tail waited
// for a writer that never came.
func TestSessionRefusesAPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Session(context.Background(), fifo, Options{To: transcript.FormatCodex, Output: filepath.Join(t.TempDir(), "out.jsonl")})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("handoff of a FIFO: %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("handoff of a FIFO waits for a writer")
	}
}

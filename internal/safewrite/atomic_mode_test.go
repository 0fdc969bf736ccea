package safewrite

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteAtomicNamesTheFile: a file that cannot be written is named in the error, with its
// folder, not the temporary file it would have been written through; it is an output the user
// must put elsewhere (OutputError, exit 2), as the other outputs that cannot be written.
func TestWriteAtomicNamesTheFile(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	path := filepath.Join(notDir, "CLAUDE.md")
	err := WriteAtomicMode(path, 0o644, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
	if err == nil || !strings.HasPrefix(err.Error(), path+": cannot create a file in "+notDir) || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("WriteAtomicMode = %v, want an error naming %s and its folder", err, path)
	}
	var oe *OutputError
	if !errors.As(err, &oe) {
		t.Errorf("WriteAtomicMode = %T, want an OutputError", err)
	}
}

// TestWriteAtomicModeKeepsTheMode: a user's file replaced keeps the mode given.
func TestWriteAtomicModeKeepsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	if err := WriteAtomicMode(path, 0o600, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v: want 0600", info.Mode().Perm(), err)
	}
}

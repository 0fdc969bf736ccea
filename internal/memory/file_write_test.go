package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteAtomicNamesTheFile: a memory file that cannot be written is named in the error, with
// its folder, not the temporary file it would have been written through.
func TestWriteAtomicNamesTheFile(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, nil, 0o644)
	path := filepath.Join(notDir, "CLAUDE.md")
	err := writeAtomic(path, []byte("x"), 0o644)
	if err == nil || !strings.HasPrefix(err.Error(), path+": cannot create a file in "+notDir) || strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("writeAtomic = %v, want an error naming %s and its folder", err, path)
	}
}

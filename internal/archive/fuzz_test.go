package archive

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzManifest feeds arbitrary bytes as a destination's manifest: archiving and verifying never
// panic, never write outside the destination, and a manifest refused is an error naming it.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"version":1,"files":{}}`))
	f.Add([]byte(`{"version":1,"files":{"x/s.jsonl.zst":{"source":"/nope","archived":3,"compressed":9}}}`))
	f.Add([]byte(`{"version":1,"files":{"../evil.zst":{"source":"/nope"}}}`))
	f.Add([]byte(`{"version":1,"files":{"s.jsonl.zst":{"plain_state":"AAAA"}}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		root := t.TempDir()
		dest := filepath.Join(root, "dest")
		os.MkdirAll(dest, 0o755)
		os.WriteFile(filepath.Join(dest, ManifestName), b, 0o644)
		src := filepath.Join(root, "s.jsonl")
		os.WriteFile(src, []byte("{\"a\":1}\n"), 0o644)
		a, err := Open(dest, false)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) || me.Path != filepath.Join(dest, ManifestName) {
				t.Fatalf("error not naming the manifest: %v", err)
			}
			return
		}
		s := Source{src, "s.jsonl.zst"}
		a.Prepare([]Source{s})
		a.File(s)
		a.Close()
		Verify(dest)
		if entries, _ := os.ReadDir(root); len(entries) != 2 {
			t.Fatalf("wrote outside the destination: %v", entries)
		}
	})
}

package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFirstBuild builds an index from nothing: of the sessions under
// $CTXC_BENCH_ARCHIVE (an archive of scripts/gen-archive, say) when it is set, else of a
// generated archive. It reports the text read per second of the build.
func BenchmarkFirstBuild(b *testing.B) {
	src := os.Getenv("CTXC_BENCH_ARCHIVE")
	var files []string
	if src == "" {
		src = b.TempDir()
		files = genArchive(b, src, 400)
	} else {
		filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
	}
	var bytes int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			bytes += info.Size()
		}
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for range b.N {
		dir := filepath.Join(b.TempDir(), "ix")
		if _, err := Update(dir, files, []string{src}, UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

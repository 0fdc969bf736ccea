package compact

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkCompactFile compacts a copy of CTXC_BENCH_FILE with the extractive summarizer (in
// place for generic formats, with -o for agent formats); skipped when unset.
// scripts/bench-compact.sh compares the same with `ctxc stats` from the command line.
func BenchmarkCompactFile(b *testing.B) {
	src := os.Getenv("CTXC_BENCH_FILE")
	if src == "" {
		b.Skip("CTXC_BENCH_FILE not set")
	}
	info, err := os.Stat(src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := filepath.Join(dir, "s.jsonl")
		copyFile(b, src, p)
		b.StartTimer()
		o := Options{Idle: 0, Force: true, Now: time.Now(), Threshold: 10000}
		if os.Getenv("CTXC_BENCH_OUTPUT") != "" {
			o.Output = filepath.Join(dir, "out.jsonl")
		}
		if _, err := File(context.Background(), p, o); err != nil {
			b.Fatal(err)
		}
	}
}

func copyFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	io.Copy(out, in)
}

package transcript

import (
	"os"
	"testing"
)

// BenchmarkScanFile measures ctxc stats throughput on the file named by CTXC_BENCH_FILE (e.g. a
// 1 GB transcript from ../shared/tools/gen-transcript); skipped when unset.
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("CTXC_BENCH_FILE")
	if path == "" {
		b.Skip("CTXC_BENCH_FILE not set")
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ScanParallel(f, path, Options{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkScanRanges is BenchmarkScanFile with ScanRanges (what `ctxc stats` runs on a file).
func BenchmarkScanRanges(b *testing.B) {
	path := os.Getenv("CTXC_BENCH_FILE")
	if path == "" {
		b.Skip("CTXC_BENCH_FILE not set")
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ScanRanges(f, info.Size(), path, Options{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

package transcript

import (
	"os"
	"testing"
)

// BenchmarkScanFile measures ctxc stats throughput on the file named by CTXC_BENCH_FILE (e.g. a
// 1 GB transcript from ../shared/tools/gen-transcript) with the sequential pipeline (standard
// input's); skipped when unset.
func BenchmarkScanFile(b *testing.B) {
	benchScan(b, func(f *os.File, size int64, path string) error {
		_, err := Scan(f, path, Options{})
		return err
	})
}

// BenchmarkScanRanges is BenchmarkScanFile with scanFileRanges (what `ctxc stats` runs on a large file).
func BenchmarkScanRanges(b *testing.B) {
	benchScan(b, func(f *os.File, size int64, path string) error {
		_, err := scanFileRanges(f, size, path, Options{})
		return err
	})
}

// benchScan runs scan on a fresh handle of CTXC_BENCH_FILE per iteration.
func benchScan(b *testing.B, scan func(f *os.File, size int64, path string) error) {
	path := os.Getenv("CTXC_BENCH_FILE")
	if path == "" {
		b.Skip("CTXC_BENCH_FILE not set")
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(info.Size())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := scan(f, info.Size(), path); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

//go:build linux

// Command mmapprobe measures what reading a file through memory maps costs the kernel, without
// any of ctxc's work: it maps the file in windows (as `ctxc stats` does), reads one byte per
// 64-byte cache line, and unmaps, with N workers. Comparing -w 1 and -w 2 shows how much the
// page-mapping part of a scan can gain from a second core on a given machine:
//
//	go build -o /tmp/mmapprobe ./scripts/mmapprobe
//	/usr/bin/time -f '%e s %U user %S sys' /tmp/mmapprobe -w 1 /tmp/ctxc-bench/big-1000000000.jsonl
//	/usr/bin/time -f '%e s %U user %S sys' /tmp/mmapprobe -w 2 /tmp/ctxc-bench/big-1000000000.jsonl
//
// -populate maps with MAP_POPULATE (pages mapped by the mmap call) instead of faulting them in.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

func main() {
	workers := flag.Int("w", 1, "workers")
	window := flag.Int("window", 2<<20, "window size in bytes")
	populate := flag.Bool("populate", false, "map with MAP_POPULATE")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mmapprobe [-w N] [-window BYTES] [-populate] FILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	info, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	size, chunk := info.Size(), int64(*window)
	flags := syscall.MAP_SHARED
	if *populate {
		flags |= syscall.MAP_POPULATE
	}
	var next atomic.Int64
	var sum atomic.Uint64 // so that the reads are not optimized away
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s uint64
			for {
				off := next.Add(chunk) - chunk
				if off >= size {
					break
				}
				b, err := syscall.Mmap(int(f.Fd()), off, int(min(chunk, size-off)), syscall.PROT_READ, flags)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				for i := 0; i < len(b); i += 64 {
					s += uint64(b[i])
				}
				syscall.Munmap(b)
			}
			sum.Add(s)
		}()
	}
	wg.Wait()
	fmt.Println(sum.Load())
}

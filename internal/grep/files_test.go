package grep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFiles: whatever order the searches end in, Files gives every file's hits and failures in
// the order of the list; a large file's hits (and standard input's) come while it is searched,
// the others' once the files before them are done; no more than jobs files are searched at once.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil { // sparse: a large file costs no disk
			t.Fatal(err)
		}
		return p
	}
	small := []string{file("a", 10), file("b", 2000), file("c", 0), file("d", 500), file("e", 70)}
	big := file("big", aloneSize)
	justUnder := file("under", aloneSize-1)
	missing := filepath.Join(dir, "missing")
	errSearch := errors.New("unreadable")
	errRefused := errors.New("refused")
	for _, tc := range []struct {
		name  string
		files []string
		jobs  int
		fail  map[string]bool // the search fails after its hits
		// refuse: emit refuses the file's second hit.
		refuse map[string]bool
		alone  map[string]bool // hits given to emit while the file is searched
	}{
		{name: "small files", files: small, jobs: 4},
		{name: "one job", files: small, jobs: 1, alone: all(small)},
		{name: "no jobs", files: small, jobs: 0, alone: all(small)},
		{name: "more jobs than files", files: small[:2], jobs: 8},
		{name: "large files among small ones", files: []string{small[0], big, small[1], justUnder, small[2], big}, jobs: 2, alone: all([]string{big})},
		{name: "standard input", files: []string{small[0], "-", small[1]}, jobs: 3, alone: all([]string{"-"})},
		{name: "failures in order", files: append(small, missing, small[0]), jobs: 3, fail: all([]string{small[1], small[3]}), alone: all([]string{missing})},
		{name: "failures with one job", files: append(small, missing), jobs: 1, fail: all([]string{small[2]}), alone: all(append(small, missing))},
		{name: "emit refuses", files: append(small, big), jobs: 2, refuse: all([]string{small[1], big}), alone: all([]string{big})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The later files of the list end first.
			delay := map[string]time.Duration{}
			for i, f := range tc.files {
				delay[f] = time.Duration(len(tc.files)-i) * time.Millisecond
			}
			var mu sync.Mutex
			searching := map[string]int{} // searches of each path running now
			var running, most atomic.Int32
			search := func(path string, emit func(Hit) error) error {
				if path == missing {
					return &os.PathError{Op: "open", Path: path, Err: os.ErrNotExist}
				}
				n := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				mu.Lock()
				searching[path]++
				mu.Unlock()
				defer func() {
					mu.Lock()
					searching[path]--
					mu.Unlock()
				}()
				time.Sleep(delay[path])
				for k := 1; k <= 3; k++ {
					if err := emit(Hit{Path: path, Line: k}); err != nil {
						return err
					}
				}
				if tc.fail[path] {
					return errSearch
				}
				return nil
			}
			listed := map[string]int{}
			for _, f := range tc.files {
				listed[f]++
			}
			var got []string
			emit := func(h Hit) error {
				mu.Lock()
				during := searching[h.Path] > 0
				mu.Unlock()
				// (a file listed twice may be searched again, ahead, while its first hits are given)
				if during != tc.alone[h.Path] && listed[h.Path] == 1 {
					t.Errorf("%s:%d given to emit while searched: %v", h.Path, h.Line, during)
				}
				if tc.refuse[h.Path] && h.Line == 2 {
					return errRefused
				}
				got = append(got, fmt.Sprintf("%s:%d", filepath.Base(h.Path), h.Line))
				return nil
			}
			Files(tc.files, nil, tc.jobs, search, emit, func(path string, err error) {
				got = append(got, fmt.Sprintf("%s failed: %v", filepath.Base(path), err))
			})
			var want []string
			for _, f := range tc.files {
				switch {
				case f == missing:
					want = append(want, fmt.Sprintf("missing failed: open %s: file does not exist", missing))
				case tc.refuse[f]:
					want = append(want, filepath.Base(f)+":1", filepath.Base(f)+" failed: refused")
				default:
					for k := 1; k <= 3; k++ {
						want = append(want, fmt.Sprintf("%s:%d", filepath.Base(f), k))
					}
					if tc.fail[f] {
						want = append(want, filepath.Base(f)+" failed: unreadable")
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%v\nwant\n%v", got, want)
			}
			limit := int32(max(1, tc.jobs))
			if tc.jobs > 1 && len(tc.alone) > 0 {
				limit++ // the caller's own search of a large file, beside jobs others
			}
			if most.Load() > limit {
				t.Errorf("%d searches at once, jobs %d", most.Load(), tc.jobs)
			}
		})
	}
}

func all(paths []string) map[string]bool {
	m := map[string]bool{}
	for _, p := range paths {
		m[p] = true
	}
	return m
}

// TestFilesReadAheadOfASlowFile: while the first file is slow to search, the other job goes on
// with the next files (up to aheadPerJob per job wait with their hits), instead of waiting,
// idle, for the first file's hits to be given.
func TestFilesReadAheadOfASlowFile(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 8 {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	release := make(chan struct{})
	var done atomic.Int32
	search := func(path string, emit func(Hit) error) error {
		if path == files[0] {
			<-release // slow: until the others were searched
		} else {
			done.Add(1)
		}
		return emit(Hit{Path: path, Line: 1})
	}
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for done.Load() < int32(aheadPerJob*2-1) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		close(release)
	}()
	var got []string
	Files(files, nil, 2, search, func(h Hit) error {
		got = append(got, filepath.Base(h.Path))
		return nil
	}, func(path string, err error) { t.Errorf("%s: %v", path, err) })
	if n := done.Load(); n < int32(aheadPerJob*2-1) {
		t.Errorf("%d files searched while the first was, want %d", n, aheadPerJob*2-1)
	}
	want := []string{"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hits in the order %v, want %v", got, want)
	}
}

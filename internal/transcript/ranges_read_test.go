package transcript

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// failingReaderAt is a file whose bytes from failFrom on cannot be read.
type failingReaderAt struct {
	data     []byte
	failFrom int64
}

var errUnreadable = errors.New("unreadable sector")

func (f failingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) > f.failFrom {
		return 0, errUnreadable
	}
	return copy(b, f.data[off:]), nil
}

// TestRangesReadErrors: a read that fails, for a range's window or for the rest of a line
// longer than its window, is the scan's error (at that offset); a line over the cap is refused
// before the reads reach that far; and fewer than one worker is one.
func TestRangesReadErrors(t *testing.T) {
	user := func(s string) string { return fmt.Sprintf("{\"role\":\"user\",\"content\":%q}\n", s) }
	short := strings.Repeat(user("hello there"), 400) // about 14 KB: 4 ranges of 4 KB
	long := user("a") + user(strings.Repeat("x", 20000)) + user("b")
	huge := user("a") + user(strings.Repeat("x", 3<<20))
	for _, tc := range []struct {
		name     string
		data     string
		opts     Options
		failFrom int64
		want     string
	}{
		{name: "a window", data: short, failFrom: 6000, want: "f: reading at 4095: unreadable sector"},
		{name: "the rest of a long line", data: long, failFrom: 10000, want: "f: reading at 4352: unreadable sector"},
		{name: "a line over the cap", data: huge, opts: Options{MaxLine: 1 << 20}, failFrom: 5 << 19, want: "f:2: line longer than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			_, err := scanRanges(failingReaderAt{data, tc.failFrom}, int64(len(data)), "f", tc.opts, 4096, 2)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("no workers", func(t *testing.T) {
		checkRanges(t, []byte(short+long), Options{}, 4096, 0)
	})
}

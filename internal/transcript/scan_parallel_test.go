package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ctxc/ctxc/internal/bigbuf"
)

// checkParallel reads data with scanLines (the reference) and with Scan, from readers that
// readErr (when set) makes fail after the data, and fails unless both give the same error or
// the same warnings, statistics and messages: for stats and for loads (messages parsed with
// their text by the validators).
func checkParallel(t *testing.T, data []byte, opts Options, readErr error) {
	t.Helper()
	reader := func() io.Reader {
		if readErr == nil {
			return bytes.NewReader(data)
		}
		return io.MultiReader(bytes.NewReader(data), iotest.ErrReader(readErr))
	}
	for _, keep := range []Format{FormatUnknown, FormatOpenAI, FormatClaude} {
		o := opts
		o.keep = keep
		var wantWarn, gotWarn []string
		o.Warn = func(w Warning) { wantWarn = append(wantWarn, w.String()) }
		want, err1 := scanLines(reader(), "f", o)
		o.Warn = func(w Warning) { gotWarn = append(gotWarn, w.String()) }
		got, err2 := Scan(reader(), "f", o)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("keep %q: sequential error %v, pipeline error %v", keep, err1, err2)
		}
		if !reflect.DeepEqual(wantWarn, gotWarn) {
			t.Fatalf("keep %q: warnings differ:\n%q\n%q", keep, wantWarn, gotWarn)
		}
		if err1 != nil {
			continue
		}
		if a, b := statsView(want.Stats), statsView(got.Stats); !reflect.DeepEqual(a, b) {
			t.Fatalf("keep %q: stats differ:\nsequential %+v\npipeline   %+v", keep, a, b)
		}
		wm, err1 := want.Messages(bytes.NewReader(data))
		gm, err2 := got.Messages(bytes.NewReader(data))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("keep %q: Messages: %v vs %v", keep, err1, err2)
		}
		if !reflect.DeepEqual(wm, gm) {
			t.Fatalf("keep %q: messages differ:\nsequential %+v\npipeline   %+v", keep, wm, gm)
		}
	}
}

// TestScanAgreesWithOnePass: the stream pipeline gives what the sequential reader gives on inputs
// that fill several batches, on lines that get a buffer of their own, over the line cap, with a
// strict error, with a read error in a later batch, and on the Claude Code fixtures.
func TestScanAgreesWithOnePass(t *testing.T) {
	huge := strings.Repeat("x", 1<<20+1) // longer than the line reader's buffer: read into memory of its own
	user := func(s string) string { return fmt.Sprintf("{\"role\":\"user\",\"content\":%q}\n", s) }
	many := strings.Repeat(user(strings.Repeat("a", 1000)), 5000) // about 5 MB: several batches
	claude, err := os.ReadFile("../../testdata/fixtures/claude-compact-boundary.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	disk := errors.New("disk gone")
	for _, tc := range []struct {
		name    string
		data    string
		opts    Options
		readErr error
	}{
		{name: "several batches", data: many + user("last")},
		{name: "huge lines", data: user("a") + user(huge) + user("b") + user(huge+"y") + many},
		{name: "huge line last, unterminated", data: many + strings.TrimSuffix(user(huge), "\n")},
		{name: "over the line cap", data: many + user(huge), opts: Options{MaxLine: 1 << 20}},
		{name: "strict error in a later batch", data: many + "{oops\n" + user("c"), opts: Options{Strict: true}},
		{name: "strict error, long lines on their way", data: user("a") + "{oops\n" + user(huge) + user(huge+"z") + many + user(huge), opts: Options{Strict: true}},
		{name: "long lines held before a weak format", data: user(huge) + user(huge+"y") + user("c")},
		{name: "read error in a later batch", data: many, readErr: disk},
		{name: "read error at once", data: "", readErr: disk},
		{name: "claude code", data: string(claude)},
		{name: "empty", data: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkParallel(t, []byte(tc.data), tc.opts, tc.readErr)
			waitFreed(t)
		})
	}
}

// waitFreed fails unless every long line's own memory is freed (bigbuf.Held comes back to
// zero): read, held and settled, or on its way when the scan stopped early (freed by the
// pipeline's stop, on a goroutine of its own, once validated).
func waitFreed(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); bigbuf.Held() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of long lines never freed", bigbuf.Held())
		}
		time.Sleep(time.Millisecond)
	}
}
